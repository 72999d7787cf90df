# spec: {"model": "mae_masked_token_mse.py:MaskedFeatureLoss", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}, {"tensor": [2, 10, 16]}, {"tensor": [2, 10], "dtype": "bool", "p": 0.5}]}
import torch.nn.functional as F
from torch import nn


class MaskedFeatureLoss(nn.Module):
    """data2vec / MaskFeat style: regress teacher features of the masked tokens only
    ([B, T, D] features, a [B, T] token mask)."""

    def __init__(self, dim):
        super().__init__()
        self.regression_head = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)

    def forward(self, student, teacher, mask):
        pred = self.regression_head(student)
        target = self.norm(teacher)
        loss = F.mse_loss(pred[mask].float(), target[mask].float())
        return loss
