"""torch-dct: JPEG-like compression of feature maps by keeping low DCT frequencies."""

import torch
import torch_dct as dct


class DCTCompress(torch.nn.Module):
    def __init__(self, keep: int = 4) -> None:
        super().__init__()
        self.keep = keep

    def forward(self, x):
        coeffs = dct.dct_2d(x, norm="ortho")
        mask = torch.zeros_like(coeffs)
        mask[..., : self.keep, : self.keep] = 1.0
        return dct.idct_2d(coeffs * mask, norm="ortho")


def make():
    torch.manual_seed(0)
    return DCTCompress(), (torch.randn(2, 3, 8, 8),)
