# spec: {"model": "einops_slot_attention_converge.py:SlotAttention", "init": {"args": [16]}, "inputs": [{"tensor": [2, 20, 16]}]}
import torch
from einops import einsum, rearrange
from torch import nn


class SlotAttention(nn.Module):
    """Slot Attention (Locatello et al.) with einops; iterations stop early once the slots stop moving."""

    def __init__(self, dim, num_slots=4, max_iters=5, tol=1e-3):
        super().__init__()
        self.slots_mu = nn.Parameter(torch.randn(1, num_slots, dim))
        self.to_q, self.to_k, self.to_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.gru = nn.GRUCell(dim, dim)
        self.norm_in, self.norm_slots = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.max_iters, self.tol = max_iters, tol
        self.scale = dim**-0.5

    def forward(self, inputs):
        b, _, d = inputs.shape
        inputs = self.norm_in(inputs)
        k, v = self.to_k(inputs), self.to_v(inputs)
        slots = self.slots_mu.expand(b, -1, -1)
        for _ in range(self.max_iters):
            prev = slots
            q = self.to_q(self.norm_slots(slots))
            attn = einsum(q, k, "b s d, b n d -> b s n").mul(self.scale).softmax(dim=1)
            attn = attn / attn.sum(dim=-1, keepdim=True)
            updates = einsum(attn, v, "b s n, b n d -> b s d")
            slots = self.gru(rearrange(updates, "b s d -> (b s) d"), rearrange(prev, "b s d -> (b s) d"))
            slots = rearrange(slots, "(b s) d -> b s d", b=b)
            if (slots - prev).abs().max() < self.tol:
                break
        return slots
