# spec: {"model": "clean_np_feature_standardize.py:StandardizedRegressor", "init": {"args": [6]}, "inputs": [{"tensor": [5, 6], "init": "randn"}]}
import numpy as np
import torch
from torch import nn


class StandardizedRegressor(nn.Module):
    """Tabular regressor whose feature standardisation was written with numpy on the
    detached input (torch.compile traces numpy on tensors' arrays)."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 1)

    def forward(self, x):
        arr = x.detach().numpy()
        mu = np.mean(arr, axis=0)
        sd = np.std(arr, axis=0) + 1e-6
        z = torch.as_tensor((arr - mu) / sd)
        return self.fc(z)
