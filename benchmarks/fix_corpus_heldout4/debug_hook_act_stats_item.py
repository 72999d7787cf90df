# spec: {"model": "debug_hook_act_stats_item.py:HookedConvNet", "init": {"args": [10]}, "inputs": [{"tensor": [2, 3, 16, 16]}]}
from collections import defaultdict

import torch
from torch import nn


class HookedConvNet(nn.Module):
    """ConvNet with forward hooks registered on every conv that collect activation mean/std for dead-unit debugging."""

    def __init__(self, num_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.fc = nn.Linear(32, num_classes)
        self.stats = defaultdict(list)
        for name, m in self.body.named_modules():
            if isinstance(m, nn.Conv2d):
                m.register_forward_hook(self._make_hook(name))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            self.stats[name].append((output.mean().item(), output.std().item()))
        return hook

    def forward(self, x):
        return self.fc(self.body(x))
