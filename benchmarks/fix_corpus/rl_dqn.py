# spec: {"model": "rl_dqn.py:QNetwork", "init": {"args": [4, 2]}, "inputs": [{"tensor": [8, 4]}]}
import torch
from torch import nn


class QNetwork(nn.Module):
    def __init__(self, state_size, action_size, fc_units=16):
        super().__init__()
        self.fc1 = nn.Linear(state_size, fc_units)
        self.fc2 = nn.Linear(fc_units, action_size)

    def forward(self, state):
        x = torch.relu(self.fc1(state))
        q = self.fc2(x)
        max_q = q.max().item()
        min_q = q.min().item()
        return q / max(abs(max_q), 1.0) + 0 * min_q
