# spec: {"model": "loss_conf_label_smoothing.py:ConfidenceSmoothedCE", "init": {"args": [16, 6]}, "inputs": [{"tensor": [8, 16]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
import torch.nn.functional as F
from torch import nn


class ConfidenceSmoothedCE(nn.Module):
    """Classifier head whose label smoothing shrinks as the batch grows confident (research code)."""

    def __init__(self, dim, num_classes, base_eps=0.1):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.num_classes = num_classes
        self.base_eps = base_eps

    def forward(self, feats, target):
        logits = self.fc(feats)
        logp = F.log_softmax(logits, dim=-1)
        conf = logp.exp().max(dim=-1).values.mean().item()
        eps = (1.0 - conf) * self.base_eps
        nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        smooth = -logp.mean(dim=-1)
        loss = (1.0 - eps) * nll + eps * smooth
        return loss.mean()
