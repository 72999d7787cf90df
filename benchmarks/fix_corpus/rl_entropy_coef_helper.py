# spec: {"model": "rl_entropy_coef_helper.py:A2CLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 4}, {"tensor": [16]}], "mode": "train"}
import torch
from torch import nn
from torch.distributions import Categorical


class A2CLoss(nn.Module):
    """An A2C loss (rl-games flavour) whose entropy coefficient comes from a helper method that
    returns a Python number picked by a tensor test: the bonus is kept on while the policy is
    still nearly uniform."""

    def __init__(self, obs_dim, n_actions, ent_coef=0.01, min_entropy=1.0):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.value = nn.Linear(obs_dim, 1)
        self.ent_coef = ent_coef
        self.min_entropy = min_entropy

    def entropy_scale(self, entropy):
        if entropy.mean() > self.min_entropy:
            return 1.0
        return 0.5

    def forward(self, obs, actions, returns):
        dist = Categorical(logits=self.policy(obs))
        adv = returns - self.value(obs).squeeze(-1)
        policy_loss = -(dist.log_prob(actions) * adv.detach()).mean()
        entropy = dist.entropy()
        value_loss = adv.pow(2).mean()
        return policy_loss + 0.5 * value_loss - self.ent_coef * self.entropy_scale(entropy) * entropy.mean()
