# spec: {"model": "hf_llama_rotary_cache_position.py:RotaryDecoderStep", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}, 3], "variants": [{"inputs": [{"tensor": [1, 1, 16]}, 4]}, {"inputs": [{"tensor": [1, 1, 16]}, 5]}, {"inputs": [{"tensor": [1, 1, 16]}, 6]}]}
from collections.abc import Callable

import torch
from torch import nn
from transformers import LlamaConfig
from transformers.integrations import use_kernel_forward_from_hub
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS, dynamic_rope_update
from transformers.utils.generic import maybe_autocast

# vendored from transformers 5.24.0 transformers/models/llama/modeling_llama.py
def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)

# vendored from transformers 5.24.0 transformers/models/llama/modeling_llama.py
@use_kernel_forward_from_hub("rotary_pos_emb")
def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed

# vendored from transformers 5.24.0 transformers/models/llama/modeling_llama.py
class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.max_seq_len_cached = config.max_position_embeddings
        self.original_max_seq_len = config.max_position_embeddings

        self.config = config

        self.rope_type = self.config.rope_parameters["rope_type"]
        rope_init_fn: Callable = self.compute_default_rope_parameters
        if self.rope_type != "default":
            rope_init_fn = ROPE_INIT_FUNCTIONS[self.rope_type]
        inv_freq, self.attention_scaling = rope_init_fn(self.config)

        self.inv_freq = nn.Buffer(inv_freq, persistent=False)
        self.original_inv_freq = nn.Buffer(inv_freq.clone(), persistent=False)

    @staticmethod
    def compute_default_rope_parameters(config: LlamaConfig, **kwargs) -> tuple[torch.Tensor, float]:
        base = config.rope_parameters["rope_theta"]
        dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads

        attention_factor = 1.0  # Unused in this type of RoPE
        # Compute the inverse frequencies
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
        return inv_freq, attention_factor

    @dynamic_rope_update  # power user: used with advanced RoPE types (e.g. dynamic rope)
    def forward(self, x, position_ids):
        freqs = position_ids[..., None].float() * self.inv_freq.to(device=x.device, dtype=torch.float)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling

        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


class RotaryDecoderStep(nn.Module):
    def __init__(self, hidden_size, num_heads=2):
        super().__init__()
        self.config = LlamaConfig(hidden_size=hidden_size, num_attention_heads=num_heads, num_hidden_layers=1,
                                  intermediate_size=2 * hidden_size, vocab_size=32, max_position_embeddings=64)
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.rotary_emb = LlamaRotaryEmbedding(config=self.config)

    def forward(self, hidden_states, past_seen_tokens):
        bsz, q_len, _ = hidden_states.shape
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + q_len, device=hidden_states.device)
        position_ids = cache_position.unsqueeze(0)
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary_emb(hidden_states, position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        return q @ k.transpose(-1, -2)
