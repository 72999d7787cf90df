"""pytorch-msssim: an SSIM reconstruction loss for an autoencoder's outputs."""

import torch
from pytorch_msssim import SSIM


class ReconLoss(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ssim = SSIM(data_range=1.0, size_average=True, channel=3, win_size=7)

    def forward(self, recon, target):
        return 1.0 - self.ssim(recon, target)


def make():
    torch.manual_seed(0)
    return ReconLoss(), (torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32))
