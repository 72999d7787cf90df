# spec: {"model": "s4_timestep_tensor_no_recompile.py:TimeConditionedMLP", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4], "data": [999.0, 999.0, 999.0, 999.0]}], "variants": [{"inputs": [{"tensor": [4, 8]}, {"tensor": [4], "data": [979.0, 979.0, 979.0, 979.0]}]}, {"inputs": [{"tensor": [4, 8]}, {"tensor": [4], "data": [959.0, 959.0, 959.0, 959.0]}]}]}
import torch
from torch import nn


class TimeConditionedMLP(nn.Module):
    """A score network taking its timesteps as a tensor (the batch of `t`), as diffusers passes them."""

    def __init__(self, dim):
        super().__init__()
        self.time_proj = nn.Linear(1, dim)
        self.net = nn.Linear(dim, dim)

    def forward(self, x, timesteps):
        t_emb = self.time_proj((timesteps / 1000.0)[:, None])
        return self.net(torch.relu(x + t_emb))
