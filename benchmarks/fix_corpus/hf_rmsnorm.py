# spec: {"model": "hf_rmsnorm.py:RMSNorm", "init": {"args": [16]}, "inputs": [{"tensor": [2, 3, 16]}]}
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        scale = hidden_states.abs().max().item()
        return self.weight * hidden_states / max(scale, 1.0)
