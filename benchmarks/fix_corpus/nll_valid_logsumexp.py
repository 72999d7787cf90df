# spec: {"model": "nll_valid_logsumexp.py:ValidLSE", "inputs": [{"tensor": [10, 3]}, {"tensor": [10], "init": "rand"}]}
import torch
from torch import nn


class ValidLSE(nn.Module):
    """A soft maximum over the valid candidates' scores (CRF/energy-model style):
    `torch.logsumexp` of a selection."""

    def __init__(self, dim=3):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, cands, keep_prob):
        scores = self.score(cands).squeeze(-1)
        valid = keep_prob > 0.2
        soft_max = torch.logsumexp(scores[valid], dim=0)
        return scores, soft_max
