# spec: {"model": "wgan_critic_clip_data.py:Critic", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [4, 10]}], "mode": "train"}
from torch import nn


class Critic(nn.Module):
    """WGAN critic (the original paper's script): weights clipped through `.data` before each
    critic step, then the Wasserstein estimate."""

    def __init__(self, dim, clip=0.01):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.clip = clip

    def forward(self, real, fake):
        for p in self.net.parameters():
            p.data.clamp_(-self.clip, self.clip)
        return self.net(fake).mean() - self.net(real).mean()
