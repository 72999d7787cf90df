# spec: {"model": "cnt_exp_noise_decay.py:NoisyActor", "init": {"args": [5, 2]}, "inputs": [{"tensor": [3, 5]}], "calls": 4}
import numpy as np
import torch
from torch import nn


class NoisyActor(nn.Module):
    """A DDPG/TD3-style actor whose exploration noise decays exponentially with the number of
    actions taken, kept on the module (the RL-tutorial habit)."""

    def __init__(self, obs_dim, act_dim, sigma_start=0.5, sigma_end=0.05, decay=2.0):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, act_dim))
        self.sigma_start = sigma_start
        self.sigma_end = sigma_end
        self.decay = decay
        self.actions_taken = 0

    def forward(self, obs):
        action = torch.tanh(self.mu(obs))
        sigma = self.sigma_end + (self.sigma_start - self.sigma_end) * np.exp(
            -1.0 * self.actions_taken / self.decay
        )
        self.actions_taken = self.actions_taken + 1
        noise = torch.zeros_like(action)  # deterministic here; a real actor samples it
        return (action + sigma * noise).clamp(-1.0, 1.0), sigma * action.abs().mean()
