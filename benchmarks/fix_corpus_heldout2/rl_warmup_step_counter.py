# spec: {"model": "rl_warmup_step_counter.py:ExplorationPolicy", "init": {"args": [4, 3]}, "inputs": [{"tensor": [8, 4]}], "mode": "train", "calls": 4}
import torch
from torch import nn


class ExplorationPolicy(nn.Module):
    """A policy whose exploration temperature anneals with the number of forward calls (a step counter on self)."""

    def __init__(self, obs_dim, n_actions, anneal_steps=1000):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.anneal_steps = anneal_steps
        self.steps = 0

    def forward(self, obs):
        if self.training:
            self.steps += 1
        temperature = max(0.1, 1.0 - self.steps / self.anneal_steps)
        return torch.softmax(self.net(obs) / temperature, dim=-1)
