"""pytorch-msssim: multi-scale SSIM between a denoiser's output and the clean image."""

import torch
from pytorch_msssim import ms_ssim


class Denoiser(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, noisy, clean):
        out = self.net(noisy).clamp(0, 1)
        score = ms_ssim(out, clean, data_range=1.0, win_size=3, weights=[0.5, 0.5])
        return out, score


def make():
    torch.manual_seed(0)
    return Denoiser(), (torch.rand(1, 1, 48, 48), torch.rand(1, 1, 48, 48))
