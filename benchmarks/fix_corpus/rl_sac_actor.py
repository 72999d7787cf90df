# spec: {"model": "rl_sac_actor.py:SquashedGaussianActor", "init": {"args": [5, 2]}, "inputs": [{"tensor": [4, 5]}]}
import math

import torch
import torch.nn.functional as F
from torch import nn

LOG_STD_MAX = 2
LOG_STD_MIN = -5


class SquashedGaussianActor(nn.Module):
    """A SAC actor in the CleanRL style (deterministic head for evaluation)."""

    def __init__(self, obs_dim, act_dim, hidden=32, action_scale=1.0):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc_mean = nn.Linear(hidden, act_dim)
        self.fc_logstd = nn.Linear(hidden, act_dim)
        self.action_scale = action_scale

    def forward(self, obs):
        x = F.relu(self.fc1(obs))
        x = F.relu(self.fc2(x))
        mean = self.fc_mean(x)
        log_std = torch.tanh(self.fc_logstd(x))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        entropy = 0.5 * math.log(2 * math.pi * math.e) + log_std.mean().item()
        action = torch.tanh(mean) * self.action_scale
        return action, log_std.exp() * math.exp(-entropy)
