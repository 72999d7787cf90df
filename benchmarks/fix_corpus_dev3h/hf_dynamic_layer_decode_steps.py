# spec: {"model": "hf_dynamic_layer_decode_steps.py:CachedSelfAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}], "calls": 4}
import torch
from torch import nn
from transformers.cache_utils import CacheLayerMixin

# vendored from transformers 5.24.0 transformers/cache_utils.py
class DynamicLayer(CacheLayerMixin):

    is_sliding = False
    is_croppable = True

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.device = key_states.device
        self.keys = torch.tensor([], dtype=key_states.dtype, device=self.device)
        self.values = torch.tensor([], dtype=value_states.dtype, device=self.device)
        self.is_initialized = True

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # Lazy initialization
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)

        self.keys = torch.cat([self.keys, key_states], dim=-2)
        self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        kv_offset = 0
        kv_length = self.get_seq_length() + query_length
        return kv_length, kv_offset

    def get_seq_length(self) -> int:
        if not self.is_initialized or self.keys.numel() == 0:
            return 0
        return self.keys.shape[-2]

    def get_max_length(self) -> int:
        return -1

    def reset(self) -> None:
        # Dropped rather than zeroed, as `update` grows them by concatenation. Clearing `is_initialized` first skips
        # the zeroing in `super`, which is still called to reset the `cumulative_length` of the inheriting layers.
        self.keys = self.values = None
        self.is_initialized = False
        super().reset()

    def crop(self, tokens_to_remove: int) -> None:
        # Legacy path: `tokens_to_remove` represents the final absolute size that the cache should have
        if tokens_to_remove > 0:
            raise ValueError(
                f"Calling `crop` with a positive value (`{tokens_to_remove}`) is not supported. "
                "Please use a negative integer to remove that number of tokens from the cache instead."
            )

        # Nothing to do in these cases: 0 tokens to crop or the layer is not initialized (can happen with KV sharing)
        if tokens_to_remove == 0 or not self.is_initialized:
            return

        # Crop the cache
        self.keys = self.keys[..., : -abs(tokens_to_remove), :]
        self.values = self.values[..., : -abs(tokens_to_remove), :]

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.get_seq_length() > 0:
            self.keys = self.keys.repeat_interleave(repeats, dim=0)
            self.values = self.values.repeat_interleave(repeats, dim=0)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.get_seq_length() > 0:
            self.keys = self.keys[indices, ...]
            self.values = self.values[indices, ...]


class CachedSelfAttention(nn.Module):
    def __init__(self, hidden_size, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.o_proj = nn.Linear(hidden_size, hidden_size)
        self.layer = DynamicLayer()

    def forward(self, hidden_states):
        bsz, q_len, _ = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(bsz, q_len, 3, self.num_heads, self.head_dim).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        key_states, value_states = self.layer.update(k, v)
        attn = nn.functional.scaled_dot_product_attention(q, key_states, value_states)
        return self.o_proj(attn.transpose(1, 2).reshape(bsz, q_len, -1))
