# spec: {"model": "tm_spearman_pred_corr.py:QualityRegressor", "init": {"args": [12]}, "inputs": [{"tensor": [16, 12]}, {"tensor": [16], "init": "rand"}]}
import torch
from torch import nn
from torchmetrics.functional import spearman_corrcoef


class QualityRegressor(nn.Module):
    """MOS-style quality regressor that returns its loss with the Spearman correlation (torchmetrics)."""

    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, feats, mos):
        pred = self.mlp(feats).squeeze(-1)
        loss = nn.functional.mse_loss(pred, mos)
        srcc = spearman_corrcoef(pred.detach(), mos)
        return loss, srcc
