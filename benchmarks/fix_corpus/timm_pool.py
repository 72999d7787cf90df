# spec: {"model": "timm_pool.py:ClassifierHead", "init": {"args": [16, 10]}, "inputs": [{"tensor": [2, 16, 4, 4]}]}
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class ClassifierHead(nn.Module):
    def __init__(self, in_chs, num_classes, drop_rate=0.0):
        super().__init__()
        self.drop_rate = drop_rate
        self.fc = nn.Linear(in_chs, num_classes)

    def forward(self, x):
        if x.dim() != 4:
            warnings.warn("expected NCHW input")
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        if x.isnan().any():
            warnings.warn("NaN in features")
        return self.fc(x)
