# spec: {"model": "c3_staticmethod_shape.py:BartAttention", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 5, 16]}], "kwargs": {"key_value_states": {"tensor": [2, 8, 16]}}, "calls": 3}
import torch
from torch import nn


class BartAttention(nn.Module):
    """HF BART attention with its ``_shape`` helper and the is-cross-attention branch."""

    def __init__(self, embed_dim, num_heads, is_decoder=True):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.scaling = self.head_dim**-0.5
        self.is_decoder = is_decoder
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    @staticmethod
    def _shape(tensor, seq_len, bsz, num_heads, head_dim):
        return tensor.view(bsz, seq_len, num_heads, head_dim).transpose(1, 2).contiguous()

    def forward(self, hidden_states, key_value_states=None, attention_mask=None):
        is_cross_attention = key_value_states is not None
        bsz, tgt_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states) * self.scaling
        kv_input = key_value_states if is_cross_attention else hidden_states
        key_states = self._shape(self.k_proj(kv_input), -1, bsz, self.num_heads, self.head_dim)
        value_states = self._shape(self.v_proj(kv_input), -1, bsz, self.num_heads, self.head_dim)
        query_states = self._shape(query_states, tgt_len, bsz, self.num_heads, self.head_dim)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))
        if attn_weights.size() != (bsz, self.num_heads, tgt_len, key_states.size(2)):
            raise ValueError(f"attention weights should be of size {(bsz, self.num_heads, tgt_len, key_states.size(2))}")
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_output = torch.matmul(attn_weights.softmax(dim=-1), value_states)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, tgt_len, self.embed_dim)
        return self.out_proj(attn_output)
