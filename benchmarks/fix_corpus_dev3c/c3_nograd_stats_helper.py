# spec: {"model": "c3_nograd_stats_helper.py:EMAHead", "init": {"args": [16, 5]}, "inputs": [{"tensor": [4, 16]}], "calls": 3}
import torch
from torch import nn


class EMAHead(nn.Module):
    """A classifier head with a helper the training loop calls between steps (never forward)."""

    def __init__(self, dim, num_classes, momentum=0.99):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.momentum = momentum
        self.register_buffer("center", torch.zeros(dim))
        self.last_entropy = None

    @torch.no_grad()
    def update_center(self, feats):
        batch_center = feats.mean(dim=0)
        self.center.mul_(self.momentum).add_(batch_center, alpha=1 - self.momentum)
        probs = self.fc(feats).softmax(-1)
        self.last_entropy = -(probs * probs.clamp_min(1e-8).log()).sum(-1).mean().item()
        return self.last_entropy

    def forward(self, x):
        return self.fc(x - self.center)
