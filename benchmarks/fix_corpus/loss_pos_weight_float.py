# spec: {"model": "loss_pos_weight_float.py:BalancedBCE", "inputs": [{"tensor": [32]}, {"tensor": [32], "dtype": "float32", "init": "bernoulli", "p": 0.2}]}
import torch
import torch.nn.functional as F
from torch import nn


class BalancedBCE(nn.Module):
    """BCE with the positive weight set per batch from the label ratio (edge-detection / HED-style balancing)."""

    def forward(self, logits, target):
        n_pos = float(target.sum())
        n_neg = target.numel() - n_pos
        pos_weight = torch.tensor(n_neg / max(n_pos, 1.0))
        return F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight)
