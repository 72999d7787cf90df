# spec: {"model": "metric_sklearn_auc_eval.py:ClickModelWithAUC", "init": {"args": [8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6], "data": [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]}]}
import torch
from sklearn.metrics import roc_auc_score
from torch import nn
from torch.nn import functional as F


class ClickModelWithAUC(nn.Module):
    """CTR model that reports AUC next to the loss in forward (recommender notebooks)."""

    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, feats, clicks):
        logit = self.mlp(feats).squeeze(-1)
        loss = F.binary_cross_entropy_with_logits(logit, clicks)
        auc = roc_auc_score(clicks.numpy(), logit.detach().sigmoid().numpy())
        return loss, torch.tensor(auc)
