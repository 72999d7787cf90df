# spec: {"model": "c4_ppo_categorical.py:Agent", "init": {"args": [8, 4]}, "inputs": [{"tensor": [5, 8]}, {"tensor": [5], "dtype": "int64", "init": "randint", "low": 0, "high": 4}], "calls": 3}
import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """CleanRL's PPO agent: ``get_action_and_value`` with the action passed in (the update
    step), the Categorical built from logits; log-prob, entropy and value returned."""

    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(), layer_init(nn.Linear(32, 1), std=1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(), layer_init(nn.Linear(32, n_actions), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits, validate_args=False)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)

    def forward(self, x, action):
        return self.get_action_and_value(x, action)
