# spec: {"model": "s3_fill_metric_default_row.py:RetrievalScores", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}, {"tensor": [6, 16]}]}
import torch
from torch import nn


class RetrievalScores(nn.Module):
    """Retrieval head (torchmetrics-like): a similarity matrix with one extra 'no match' column
    whose score is the mean similarity, read with `float()` and also logged."""

    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)

    def forward(self, queries, keys):
        sim = self.q(queries) @ keys.t()
        null_score = float(sim.mean())
        print(f"null score {null_score:.3f}")
        null_col = sim.new_full((sim.shape[0], 1), null_score)
        return torch.cat([sim, null_col], dim=1).softmax(-1)
