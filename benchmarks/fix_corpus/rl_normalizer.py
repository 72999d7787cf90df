# spec: {"model": "rl_normalizer.py:ObsNormalizer", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}], "calls": 3}
import torch
from torch import nn


class ObsNormalizer(nn.Module):
    def __init__(self, shape, clip=5.0):
        super().__init__()
        self.register_buffer("mean", torch.zeros(shape))
        self.register_buffer("var", torch.ones(shape))
        self.count = 0
        self.clip = clip
        self.policy = nn.Linear(shape, 2)

    def forward(self, obs):
        self.count += 1
        obs = (obs - self.mean) / torch.sqrt(self.var + 1e-8)
        obs = obs.clamp(-self.clip, self.clip)
        return self.policy(obs)
