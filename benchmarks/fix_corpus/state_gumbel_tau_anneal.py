# spec: {"model": "state_gumbel_tau_anneal.py:AnnealedCodebook", "init": {"args": [8, 6]}, "inputs": [{"tensor": [3, 8]}], "mode": "train", "calls": 4}
import torch
import torch.nn as nn


class AnnealedCodebook(nn.Module):
    """Discrete bottleneck with a softmax temperature annealed every training step
    (the tau schedule of wav2vec 2.0's quantizer, kept on the module: tau = max(tau * decay, tau_min))."""

    def __init__(self, dim, codes, tau=2.0, decay=0.5, tau_min=0.5):
        super().__init__()
        self.proj = nn.Linear(dim, codes)
        self.codebook = nn.Parameter(torch.randn(codes, dim))
        self.tau = tau
        self.decay = decay
        self.tau_min = tau_min

    def forward(self, x):
        logits = self.proj(x)
        probs = torch.softmax(logits / self.tau, dim=-1)
        if self.training:
            self.tau = max(self.tau * self.decay, self.tau_min)
        return probs @ self.codebook
