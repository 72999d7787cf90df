# spec: {"model": "beam_getitem_key_loop.py:BeamPrune", "inputs": [{"tensor": [6, 5]}]}
import torch
from torch import nn


class BeamPrune(nn.Module):
    """Beam pruning (fairseq-like): hypotheses ordered by cost with `key=costs.__getitem__`,
    the best ones collected in a loop."""

    def __init__(self, dim=5, beam=2):
        super().__init__()
        self.cost = nn.Linear(dim, 1)
        self.beam = beam

    def forward(self, hyps):
        costs = self.cost(hyps).squeeze(-1)
        n = hyps.shape[0]
        ranked = sorted(range(n), key=costs.__getitem__)
        kept = []
        for i in ranked[: self.beam]:
            kept.append(hyps[i] * costs[i])
        return torch.stack(kept)
