# spec: {"model": "clean_rl_categorical_logprob.py:DiscreteActor", "init": {"args": [6, 4]}, "inputs": [{"tensor": [3, 6]}]}
from torch import nn
from torch.distributions import Categorical


class DiscreteActor(nn.Module):
    """PPO actor (CleanRL style): sample an action from a Categorical over the logits, return
    the action, its log-probability and the entropy."""

    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, n_actions))

    def forward(self, obs):
        dist = Categorical(logits=self.net(obs))
        action = dist.sample()
        return action, dist.log_prob(action), dist.entropy()
