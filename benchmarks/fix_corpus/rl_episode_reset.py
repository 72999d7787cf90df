# spec: {"model": "rl_episode_reset.py:RecurrentActor", "init": {"args": [6, 3]}, "inputs": [{"tensor": [8, 6]}, {"tensor": [8, 32]}, {"tensor": [8], "dtype": "bool", "p": 0.3}]}
import torch
from torch import nn


class RecurrentActor(nn.Module):
    """A GRU actor that zeroes the hidden state of environments whose episode ended."""

    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.gru = nn.GRUCell(hidden, hidden)
        self.pi = nn.Linear(hidden, n_actions)

    def forward(self, obs, hx, done):
        (done_idx,) = torch.where(done)
        hx = hx.clone()
        hx[done_idx] = 0.0
        hx = self.gru(self.encoder(obs), hx)
        return self.pi(hx).log_softmax(-1), hx
