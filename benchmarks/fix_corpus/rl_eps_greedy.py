# spec: {"model": "rl_eps_greedy.py:EpsilonGreedyQ", "init": {"args": [6, 3]}, "inputs": [{"tensor": [1, 6]}], "calls": 3}
import numpy as np
import torch
from torch import nn


class EpsilonGreedyQ(nn.Module):
    """A DQN head that acts epsilon-greedily, as in many tutorial agents."""

    def __init__(self, obs_dim, n_actions, eps_start=0.9, eps_end=0.05, eps_decay=200):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.n_actions = n_actions
        self.eps_start = eps_start
        self.eps_end = eps_end
        self.eps_decay = eps_decay
        self.steps_done = 0

    def forward(self, state):
        q_values = self.net(state)
        eps = self.eps_end + (self.eps_start - self.eps_end) * np.exp(
            -1.0 * self.steps_done / self.eps_decay
        )
        self.steps_done += 1
        if np.random.rand() > eps:
            action = q_values.argmax(dim=1).item()
        else:
            action = np.random.randint(self.n_actions)
        return q_values, torch.tensor([action])
