"""pytorch-metric-learning: SimCLR-style NT-Xent contrastive loss over two augmented views."""

import torch
from pytorch_metric_learning.losses import NTXentLoss


class SimCLRHead(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
        self.criterion = NTXentLoss(temperature=0.1)

    def forward(self, v1, v2):
        z = torch.cat([self.proj(v1), self.proj(v2)])
        idx = torch.arange(v1.shape[0])
        labels = torch.cat([idx, idx])
        return self.criterion(z, labels)


def make():
    torch.manual_seed(0)
    return SimCLRHead(), (torch.randn(4, 8), torch.randn(4, 8))
