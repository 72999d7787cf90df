# spec: {"model": "tensor_if_temperature.py:TemperatureScaledHead", "init": {"args": [16, 5]}, "inputs": [{"tensor": [4, 16]}]}
import torch
from torch import nn


class TemperatureScaledHead(nn.Module):
    """A calibrated classifier head that switches temperature on the batch's max logit."""

    def __init__(self, dim, n_classes, t_low=1.0, t_high=2.5):
        super().__init__()
        self.fc = nn.Linear(dim, n_classes)
        self.t_low = t_low
        self.t_high = t_high

    def forward(self, x):
        logits = self.fc(x)
        if logits.max() > 5.0:
            temperature = self.t_high
        else:
            temperature = self.t_low
        return (logits / temperature).softmax(-1)
