# spec: {"model": "c3_pool_mode_string.py:ClassifierHead", "init": {"args": [8, 3], "kwargs": {"pool_type": "avgmax"}}, "inputs": [{"tensor": [2, 8, 5, 5]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class ClassifierHead(nn.Module):
    """timm-style head: the pooling chosen by a string kept on the module."""

    def __init__(self, in_features, num_classes, pool_type="avg", drop_rate=0.0):
        super().__init__()
        self.pool_type = pool_type
        self.drop_rate = drop_rate
        mult = 2 if pool_type == "catavgmax" else 1
        self.fc = nn.Linear(in_features * mult, num_classes) if num_classes > 0 else nn.Identity()

    def forward(self, x, pre_logits: bool = False):
        if self.pool_type == "avg":
            x = F.adaptive_avg_pool2d(x, 1)
        elif self.pool_type == "max":
            x = F.adaptive_max_pool2d(x, 1)
        elif self.pool_type == "avgmax":
            x = 0.5 * (F.adaptive_avg_pool2d(x, 1) + F.adaptive_max_pool2d(x, 1))
        elif self.pool_type == "catavgmax":
            x = torch.cat((F.adaptive_avg_pool2d(x, 1), F.adaptive_max_pool2d(x, 1)), dim=1)
        else:
            raise ValueError(f"unknown pool type {self.pool_type}")
        x = x.flatten(1)
        if self.drop_rate:
            x = F.dropout(x, p=float(self.drop_rate), training=self.training)
        return x if pre_logits else self.fc(x)
