"""diffusers: a DDIM step with eta > 0 (adds noise) and an int timestep."""

import torch
from diffusers import DDIMScheduler


class DDIMStep(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.eps = torch.nn.Conv2d(2, 2, 1)
        self.scheduler = DDIMScheduler(num_train_timesteps=100, clip_sample=True)
        self.scheduler.set_timesteps(20)

    def forward(self, sample, t: int):
        return self.scheduler.step(self.eps(sample), t, sample, eta=0.5).prev_sample


def make():
    torch.manual_seed(0)
    return DDIMStep(), (torch.randn(2, 2, 4, 4), 45)
