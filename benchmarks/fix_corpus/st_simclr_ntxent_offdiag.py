# spec: {"model": "st_simclr_ntxent_offdiag.py:SimCLRHead", "init": {"args": [16, 8]}, "inputs": [{"tensor": [6, 16]}, {"tensor": [6, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class SimCLRHead(nn.Module):
    """Projection head and NT-Xent loss the way SimCLR reimplementations write it: the
    self-similarities are dropped with a `~eye` mask and the rest viewed as (2N, 2N - 1)."""

    def __init__(self, dim, proj_dim, temperature=0.5):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, proj_dim))
        self.temperature = temperature

    def info_nce_loss(self, features):
        n = features.shape[0]
        labels = torch.cat([torch.arange(n // 2) for _ in range(2)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float().to(features.device)
        features = F.normalize(features, dim=1)
        similarity_matrix = torch.matmul(features, features.T)
        mask = torch.eye(labels.shape[0], dtype=torch.bool, device=features.device)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
        logits = torch.cat([positives, negatives], dim=1) / self.temperature
        target = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)
        return F.cross_entropy(logits, target)

    def forward(self, x1, x2):
        z = self.proj(torch.cat([x1, x2], dim=0))
        return self.info_nce_loss(z)
