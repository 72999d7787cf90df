# spec: {"model": "cnt_gumbel_tau_anneal.py:GumbelQuantizer", "init": {"args": [16, 8]}, "inputs": [{"tensor": [2, 16, 4, 4]}], "calls": 4, "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class GumbelQuantizer(nn.Module):
    """A DALL-E / taming-transformers style Gumbel-softmax quantizer whose temperature is
    annealed from the number of training steps it has seen."""

    def __init__(self, dim, n_embed, tau_min=0.1, anneal_steps=3):
        super().__init__()
        self.proj = nn.Conv2d(dim, n_embed, 1)
        self.embed = nn.Embedding(n_embed, dim)
        self.tau_min = tau_min
        self.anneal = anneal_steps
        self.steps = 0

    def forward(self, z):
        logits = self.proj(z)
        tau = max(self.tau_min, 1.0 - self.steps / self.anneal)
        if self.training:
            self.steps += 1
        soft_one_hot = F.softmax(logits / tau, dim=1)
        return torch.einsum("b n h w, n d -> b d h w", soft_one_hot, self.embed.weight)
