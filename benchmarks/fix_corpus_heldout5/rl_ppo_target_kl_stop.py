# spec: {"model": "rl_ppo_target_kl_stop.py:PPOUpdate", "init": {"args": [6, 3]}, "inputs": [{"tensor": [32, 6]}, {"tensor": [32], "dtype": "int64", "init": "randint", "low": 0, "high": 3}, {"tensor": [32]}, {"tensor": [32]}], "mode": "train"}
import torch
from torch import nn
from torch.distributions import Categorical


class PPOUpdate(nn.Module):
    """PPO minibatch epochs (spinning-up layout) that stop early once approx-KL passes target_kl."""

    def __init__(self, obs_dim, n_actions, clip=0.2, target_kl=0.01, minibatch=8):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.clip = clip
        self.target_kl = target_kl
        self.minibatch = minibatch

    def forward(self, obs, act, adv, logp_old):
        losses = []
        for start in range(0, obs.size(0), self.minibatch):
            sl = slice(start, start + self.minibatch)
            dist = Categorical(logits=self.pi(obs[sl]))
            logp = dist.log_prob(act[sl])
            ratio = torch.exp(logp - logp_old[sl])
            clipped = torch.clamp(ratio, 1 - self.clip, 1 + self.clip) * adv[sl]
            losses.append(-torch.min(ratio * adv[sl], clipped).mean())
            approx_kl = (logp_old[sl] - logp).mean().item()
            if approx_kl > 1.5 * self.target_kl:
                break
        return torch.stack(losses).mean()
