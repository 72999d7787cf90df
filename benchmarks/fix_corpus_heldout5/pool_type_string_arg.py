# spec: {"model": "pool_type_string_arg.py:SelectAdaptivePoolHead", "init": {"args": [16, 5]}, "inputs": [{"tensor": [2, 16, 7, 7]}, "avg"], "variants": [{"inputs": [{"tensor": [2, 16, 7, 7]}, "max"]}, {"inputs": [{"tensor": [2, 16, 7, 7]}, "avgmax"]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelectAdaptivePoolHead(nn.Module):
    """timm-like classifier head whose global pool type is chosen per call (eval sweeps)."""

    def __init__(self, in_chs, num_classes):
        super().__init__()
        self.fc = nn.Linear(in_chs, num_classes)

    def forward(self, x, pool_type="avg"):
        if pool_type == "avg":
            x = F.adaptive_avg_pool2d(x, 1)
        elif pool_type == "max":
            x = F.adaptive_max_pool2d(x, 1)
        else:
            x = 0.5 * (F.adaptive_avg_pool2d(x, 1) + F.adaptive_max_pool2d(x, 1))
        return self.fc(x.flatten(1))
