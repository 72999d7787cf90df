# spec: {"model": "multitask_heads_getattr_none.py:DomainHeads", "inputs": [{"tensor": [4, 10]}]}
import torch
from torch import nn


class DomainHeads(nn.Module):
    """One classifier per domain, looked up with `getattr(self, name, None)` and attached on first
    use (domain-adaptation research code, DomainBed flavour)."""

    def __init__(self, dim=10, domains=("photo", "sketch", "art"), n_classes=5):
        super().__init__()
        self.features = nn.Linear(dim, 16)
        self.domains = domains
        self.n_classes = n_classes

    def forward(self, x):
        h = torch.relu(self.features(x))
        logits = []
        for d in self.domains:
            head = getattr(self, f"cls_{d}", None)
            if head is None:
                head = nn.Linear(16, self.n_classes)
                setattr(self, f"cls_{d}", head)
            logits.append(head(h))
        return torch.stack(logits).mean(0)
