# spec: {"model": "s4_timestep_tensor_then_int.py:NoisePredictor", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [2], "data": [10.0, 10.0]}], "variants": [{"inputs": [{"tensor": [2, 8]}, 10]}]}
import torch
from torch import nn


class NoisePredictor(nn.Module):
    """Accepts `timesteps` as a tensor or a Python number, as diffusers' UNets do."""

    def __init__(self, dim):
        super().__init__()
        self.t_proj = nn.Linear(1, dim)
        self.net = nn.Linear(dim, dim)

    def forward(self, sample, timesteps):
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.float32)
        timesteps = timesteps.expand(sample.shape[0])
        return self.net(sample + self.t_proj(timesteps[:, None] / 1000.0))
