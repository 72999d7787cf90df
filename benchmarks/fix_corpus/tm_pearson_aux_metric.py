# spec: {"model": "tm_pearson_aux_metric.py:AffinityRegressor", "init": {"args": [20]}, "inputs": [{"tensor": [16, 20]}, {"tensor": [16]}]}
import torch
import torch.nn.functional as F
from torch import nn
from torchmetrics.functional import pearson_corrcoef, spearman_corrcoef


class AffinityRegressor(nn.Module):
    """Binding-affinity regressor returning its loss together with torchmetrics correlations, computed in forward."""

    def __init__(self, in_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, x, y):
        pred = self.net(x).squeeze(-1)
        loss = F.mse_loss(pred, y)
        metrics = {
            "pearson": pearson_corrcoef(pred.detach(), y),
            "spearman": spearman_corrcoef(pred.detach(), y),
        }
        return loss, metrics
