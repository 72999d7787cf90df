# spec: {"model": "rl_mcts_ucb_priors.py:AlphaZeroSearch", "init": {"args": [9, 5]}, "inputs": [{"tensor": [1, 9]}]}
import math

import torch
from torch import nn


class AlphaZeroSearch(nn.Module):
    """AlphaZero-style policy/value net with a few PUCT simulations over a Python tree at the root, run in forward."""

    def __init__(self, obs_dim, n_actions, n_sims=4, c_puct=1.5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.policy = nn.Linear(32, n_actions)
        self.value = nn.Linear(32, 1)
        self.n_actions = n_actions
        self.n_sims = n_sims
        self.c_puct = c_puct

    def evaluate(self, obs):
        h = self.body(obs)
        return self.policy(h).softmax(-1)[0], torch.tanh(self.value(h))[0, 0]

    def forward(self, obs):
        priors, _ = self.evaluate(obs)
        N = [0] * self.n_actions
        W = [0.0] * self.n_actions
        for _ in range(self.n_sims):
            total = sum(N)
            scores = [
                (W[a] / N[a] if N[a] else 0.0) + self.c_puct * priors[a].item() * math.sqrt(total + 1) / (1 + N[a])
                for a in range(self.n_actions)
            ]
            a = max(range(self.n_actions), key=scores.__getitem__)
            child = obs.roll(a, dims=-1)
            _, v = self.evaluate(child)
            N[a] += 1
            W[a] += -v.item()
        visits = torch.tensor(N, dtype=torch.float32)
        return visits / visits.sum()
