# spec: {"model": "train_step_stats_item_dict.py:ClassifierWithStats", "init": {"args": [20, 5]}, "inputs": [{"tensor": [8, 20]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 5}], "mode": "train"}
import torch
from torch import nn
import torch.nn.functional as F


class ClassifierWithStats(nn.Module):
    """Training-step module that returns a logging dict of Python numbers next to the loss."""

    def __init__(self, in_dim, n_cls):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.GELU(), nn.Dropout(0.1), nn.Linear(32, n_cls))

    def forward(self, x, y):
        logits = self.body(x)
        loss = F.cross_entropy(logits, y, label_smoothing=0.1)
        with torch.no_grad():
            probs = logits.softmax(-1)
            stats = {
                "loss": loss.item(),
                "acc": (logits.argmax(-1) == y).float().mean().item(),
                "conf": probs.max(-1).values.mean().item(),
                "logit_norm": logits.norm(dim=-1).mean().item(),
            }
        return loss, stats
