"""torchmetrics: SSIM and PSNR as a reconstruction loss (functional API)."""

import torch
from torchmetrics.functional.image import peak_signal_noise_ratio, structural_similarity_index_measure


class ReconLoss(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dec = torch.nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x, target):
        y = torch.sigmoid(self.dec(x))
        ssim = structural_similarity_index_measure(y, target, data_range=1.0)
        psnr = peak_signal_noise_ratio(y, target, data_range=1.0)
        return 1.0 - ssim + 0.01 * psnr


def make():
    return ReconLoss(), (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16))
