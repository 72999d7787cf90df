"""`moe.py` fixed by hand: the same modules in the same order (same seed, same weights), the same loss.

- the load-balancing loss is still computed and returned; the log into `self.aux_history` and the
  capacity check (with its `bincount`) run only in eager;
- the dispatch is dense: every expert runs on every token and a combine matrix (the top-2 weights
  scattered into a tokens x experts matrix, zero elsewhere) mixes their outputs. Unselected
  experts get weight 0, so the output equals the sparse loop's; no data-dependent shape remains.
"""

import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(var + self.eps)).type_as(x) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim, max_len=2048, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        freqs = torch.outer(torch.arange(max_len).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, q, k):
        t = q.shape[-2]
        cos = self.cos[:t].to(q.dtype)
        sin = self.sin[:t].to(q.dtype)
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(nn.Module):
    def __init__(self, dim, heads, max_len):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.rotary = RotaryEmbedding(dim // heads, max_len)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q = self.q_proj(x).view(b, t, h, d // h).transpose(1, 2)
        k = self.k_proj(x).view(b, t, h, d // h).transpose(1, 2)
        v = self.v_proj(x).view(b, t, h, d // h).transpose(1, 2)
        q, k = self.rotary(q, k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, d))


class Expert(nn.Module):
    """A SwiGLU feed-forward expert."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoE(nn.Module):
    def __init__(self, dim, hidden, num_experts=8, top_k=2, capacity_factor=1.5):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.capacity_factor = capacity_factor
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(num_experts)])
        self.aux_history = []

    def forward(self, x):
        b, t, d = x.shape
        x = x.reshape(-1, d)
        router_logits = self.gate(x)
        probs = router_logits.float().softmax(dim=-1)
        weights, selected = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)

        # Switch-style load-balancing loss: fraction routed (first choice) x mean router probability
        routed = F.one_hot(selected[:, 0], self.num_experts).float().mean(0)
        aux = self.num_experts * (routed * probs.mean(0)).sum()
        if not torch.compiler.is_compiling():
            self.aux_history.append(float(aux))
            load = torch.bincount(selected.flatten(), minlength=self.num_experts)
            capacity = self.capacity_factor * selected.numel() / self.num_experts
            if (load > capacity).any():
                warnings.warn("MoE router overflow: an expert received more tokens than its capacity")

        combine = torch.zeros_like(probs, dtype=x.dtype).scatter(1, selected, weights)
        expert_out = torch.stack([expert(x) for expert in self.experts], dim=1)
        out = torch.einsum("ne,ned->nd", combine, expert_out)
        return out.view(b, t, d), aux


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden, num_experts, top_k, max_len):
        super().__init__()
        self.input_norm = RMSNorm(dim)
        self.attn = Attention(dim, heads, max_len)
        self.post_attn_norm = RMSNorm(dim)
        self.moe = SparseMoE(dim, hidden, num_experts, top_k)

    def forward(self, x):
        x = x + self.attn(self.input_norm(x))
        y, aux = self.moe(self.post_attn_norm(x))
        return x + y, aux


class MoELM(nn.Module):
    def __init__(
        self,
        vocab=8192,
        dim=512,
        heads=8,
        depth=8,
        hidden=1024,
        num_experts=8,
        top_k=2,
        max_len=512,
        aux_weight=0.01,
    ):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [DecoderLayer(dim, heads, hidden, num_experts, top_k, max_len) for _ in range(depth)]
        )
        self.norm = RMSNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.aux_weight = aux_weight
        nn.init.normal_(self.embed.weight, std=1.0 / math.sqrt(dim))

    def forward(self, input_ids):
        x = self.embed(input_ids)
        aux_total = x.new_zeros((), dtype=torch.float32)
        for layer in self.layers:
            x, aux = layer(x)
            aux_total = aux_total + aux
        logits = self.lm_head(self.norm(x))
        loss = F.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]).float(), input_ids[:, 1:].reshape(-1)
        )
        return loss + self.aux_weight * aux_total / len(self.layers)
