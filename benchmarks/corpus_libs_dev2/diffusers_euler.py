"""diffusers: one Euler sampling step inside the compiled forward (timestep tensor from the schedule)."""

import torch
from diffusers import EulerDiscreteScheduler


class Sampler(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.eps = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.scheduler = EulerDiscreteScheduler(num_train_timesteps=100)
        self.scheduler.set_timesteps(10)

    def forward(self, sample):
        t = self.scheduler.timesteps[0]
        x = self.scheduler.scale_model_input(sample, t)
        return self.scheduler.step(self.eps(x), t, sample).prev_sample


def make():
    torch.manual_seed(0)
    return Sampler(), (torch.randn(1, 3, 8, 8),)
