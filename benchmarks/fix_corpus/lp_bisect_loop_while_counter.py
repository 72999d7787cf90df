# spec: {"model": "lp_bisect_loop_while_counter.py:QuantileThreshold", "init": {"args": [8]}, "inputs": [{"tensor": [64, 8]}]}
import torch
from torch import nn


class QuantileThreshold(nn.Module):
    """A threshold found by bisection so that a fraction `keep` of the scores pass (token pruning);
    the loop runs while the interval is wide, at most `steps` times (keyword default)."""

    def __init__(self, dim, keep=0.25, steps=30):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.keep = keep
        self.steps = steps

    def forward(self, tokens):
        s = torch.sigmoid(self.score(tokens)).squeeze(-1)
        lo, hi = s.min(), s.max()
        i = 0
        while (hi - lo) > 1e-4:
            if i >= self.steps:
                break
            mid = (lo + hi) / 2
            frac = (s > mid).float().mean()
            lo = torch.where(frac > self.keep, mid, lo)
            hi = torch.where(frac > self.keep, hi, mid)
            i += 1
        return tokens * torch.sigmoid((s - hi) * 50.0).unsqueeze(-1)
