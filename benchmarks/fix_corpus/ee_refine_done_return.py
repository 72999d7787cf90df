# spec: {"model": "ee_refine_done_return.py:IterativeRefiner", "inputs": [{"tensor": [3, 6]}]}
import torch
from torch import nn


class IterativeRefiner(nn.Module):
    """RAFT/DETR-style iterative refinement that returns as soon as every row has converged;
    converged rows are frozen by the loop itself (the exit fires)."""

    def __init__(self, dim=6, iters=12):
        super().__init__()
        self.update_block = nn.Linear(dim, dim)
        with torch.no_grad():
            self.update_block.weight.mul_(0.1)
            self.update_block.bias.zero_()
        self.iters = iters

    def forward(self, x):
        out = x
        done = torch.zeros(x.shape[0], dtype=torch.bool)
        for it in range(self.iters):
            step = 0.5 * self.update_block(out)
            step = step.masked_fill(done[:, None], 0.0)
            out = out + step
            done = done | (step.norm(dim=-1) < 1e-2)
            if done.all():
                return out
        return out
