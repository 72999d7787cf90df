# spec: {"model": "contrastive_pair_margin.py:PairLoss", "inputs": [{"tensor": [8, 4]}, {"tensor": [8, 4]}, {"tensor": [8], "init": "rand"}]}
import torch
import torch.nn.functional as F
from torch import nn


class PairLoss(nn.Module):
    """Siamese contrastive loss (Hadsell et al., as in many siamese-network repos): similar
    pairs pull, dissimilar pairs push past a margin; the dissimilar distances go through a
    hinge with a 0-d tensor bias before the mean."""

    def __init__(self, dim=4, margin=1.0):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.margin = margin
        self.bias = nn.Parameter(torch.zeros(()))

    def forward(self, a, b, match):
        d = (self.enc(a) - self.enc(b)).norm(dim=-1)
        similar = match > 0.5
        pos_d = d[similar]
        neg_d = d[~similar]
        loss = pos_d.pow(2).mean() + F.relu(self.margin - neg_d + self.bias).pow(2).mean()
        return loss
