# spec: {"model": "c3_optional_mask_none.py:BertSelfAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 6, 16]}], "calls": 3}
import math

import torch
from torch import nn


class BertSelfAttention(nn.Module):
    """HF BERT-style attention: every optional argument left as None by the caller."""

    def __init__(self, hidden_size, num_attention_heads, dropout=0.0):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(hidden_size, self.all_head_size)
        self.key = nn.Linear(hidden_size, self.all_head_size)
        self.value = nn.Linear(hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(dropout)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None, head_mask=None, output_attentions=False):
        q = self.transpose_for_scores(self.query(hidden_states))
        k = self.transpose_for_scores(self.key(hidden_states))
        v = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            scores = scores + attention_mask
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        if head_mask is not None:
            probs = probs * head_mask
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        context = context.view(context.size()[:-2] + (self.all_head_size,))
        return (context, probs) if output_attentions else (context,)
