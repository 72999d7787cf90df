# spec: {"model": "clean_t5_relative_position_bias.py:T5SelfAttentionBias", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 7, 16]}]}
import math

import torch
from torch import nn


# vendored from transformers 5.24.0 transformers/models/t5/modeling_t5.py (T5Attention)
class T5SelfAttentionBias(nn.Module):
    def __init__(self, d_model, n_heads, relative_attention_num_buckets=32, relative_attention_max_distance=128):
        super().__init__()
        self.is_decoder = False
        self.n_heads = n_heads
        self.key_value_proj_dim = d_model // n_heads
        self.relative_attention_num_buckets = relative_attention_num_buckets
        self.relative_attention_max_distance = relative_attention_max_distance
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        self.relative_attention_bias = nn.Embedding(relative_attention_num_buckets, n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        # now relative_position is in the range [0, inf)

        # half of the buckets are for exact increments in positions
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact

        # The other half of the buckets are for logarithmically bigger bins in positions up to max_distance
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )

        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None, past_seen_tokens=0):
        """Compute binned relative position bias"""
        if device is None:
            device = self.relative_attention_bias.weight.device
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None] + past_seen_tokens
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position  # shape (query_length, key_length)
        relative_position_bucket = self._relative_position_bucket(
            relative_position,  # shape (query_length, key_length)
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(relative_position_bucket)  # shape (query_length, key_length, num_heads)
        values = values.permute([2, 0, 1]).unsqueeze(0)  # shape (1, num_heads, query_length, key_length)
        return values

    def forward(self, hidden_states):
        batch_size, seq_length = hidden_states.shape[:2]
        shape = (batch_size, -1, self.n_heads, self.key_value_proj_dim)
        q = self.q(hidden_states).view(shape).transpose(1, 2)
        k = self.k(hidden_states).view(shape).transpose(1, 2)
        v = self.v(hidden_states).view(shape).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(3, 2))
        scores = scores + self.compute_bias(seq_length, seq_length, device=scores.device)
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2).contiguous()
        return self.o(attn_output.view(batch_size, -1, self.n_heads * self.key_value_proj_dim))
