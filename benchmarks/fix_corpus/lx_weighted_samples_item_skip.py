# spec: {"model": "lx_weighted_samples_item_skip.py:SampleWeightedRegressor", "init": {"args": [5]}, "inputs": [{"tensor": [6, 5]}, {"tensor": [6, 1]}, {"tensor": [6], "data": [1.0, 0.0, 0.5, 0.0, 2.0, 1.0]}]}
import torch.nn.functional as F
from torch import nn


def sample_loss(pred, target):
    return F.smooth_l1_loss(pred, target, reduction="sum")


class SampleWeightedRegressor(nn.Module):
    """Per-sample weighted loss written as a Python loop; zero-weight samples are skipped."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x, y, weights):
        pred = self.net(x)
        loss = pred.new_zeros(())
        for i in range(x.shape[0]):
            w = weights[i].item()
            if w <= 0:
                continue
            loss = loss + w * sample_loss(pred[i], y[i])
        return loss / x.shape[0], pred
