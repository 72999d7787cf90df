# spec: {"model": "c3_shape_asserts.py:CrossAttention", "init": {"args": [16, 12], "kwargs": {"heads": 2}}, "inputs": [{"tensor": [2, 5, 16]}, {"tensor": [2, 7, 12]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class CrossAttention(nn.Module):
    """Query/context attention with shape asserts (asserts on sizes are checked at trace time)."""

    def __init__(self, query_dim, context_dim, heads=4):
        super().__init__()
        self.heads = heads
        self.query_dim = query_dim
        self.to_q = nn.Linear(query_dim, query_dim, bias=False)
        self.to_kv = nn.Linear(context_dim, 2 * query_dim, bias=False)
        self.to_out = nn.Linear(query_dim, query_dim)

    def forward(self, x, context):
        assert x.shape[-1] == self.query_dim, f"expected {self.query_dim} features, got {x.shape[-1]}"
        torch._assert(context.dim() == 3, "context must be (batch, tokens, dim)")
        assert x.shape[0] == context.shape[0]
        b, n, _ = x.shape
        h = self.heads
        q = self.to_q(x).view(b, n, h, -1).transpose(1, 2)
        k, v = self.to_kv(context).chunk(2, dim=-1)
        k = k.view(b, -1, h, q.shape[-1]).transpose(1, 2)
        v = v.view(b, -1, h, q.shape[-1]).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))
