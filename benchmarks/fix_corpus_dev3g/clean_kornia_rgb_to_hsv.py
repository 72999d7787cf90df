# spec: {"model": "clean_kornia_rgb_to_hsv.py:HSVJitterStem", "init": {"args": [8]}, "inputs": [{"tensor": [2, 3, 8, 8]}]}
import math

import torch
from torch import nn


# vendored from kornia 0.9.0 kornia/color/hsv.py
def rgb_to_hsv(image: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    r"""Convert an image from RGB to HSV."""
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(image)}")

    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError(f"Input size must have a shape of (*, 3, H, W). Got {image.shape}")

    max_rgb = image.amax(-3)
    min_rgb = image.amin(-3)
    deltac = max_rgb - min_rgb

    v = max_rgb
    # Guard black pixels before division: eps can underflow in float16, including in backward.
    s_divisor = torch.where(max_rgb == 0, torch.ones_like(max_rgb), max_rgb + eps)
    s = deltac / s_divisor

    deltac = torch.where(deltac == 0, torch.ones_like(deltac), deltac)
    rc, gc, bc = torch.unbind((max_rgb.unsqueeze(-3) - image), dim=-3)

    h1 = bc - gc
    h2 = (rc - bc) + 2.0 * deltac
    h3 = (gc - rc) + 4.0 * deltac

    # select the sextant of the first maximal channel, matching torch.max(dim) tie-breaking;
    # branchless selection avoids max/argmax-with-indices and gather, which are ~100x slower
    # than amax/pointwise ops on MPS and block fusion under torch.compile
    r, g, b = torch.unbind(image, dim=-3)
    h = torch.where((r >= g) & (r >= b), h1, torch.where(g >= b, h2, h3))
    h = h / deltac
    h = (h / 6.0) % 1.0
    h = 2.0 * math.pi * h  # we return 0/2pi output
    # A tiny negative hue rounds up to the period itself, in the modulo (float32) or only in the scaling
    # (float16: 2π * (1 - 2**-11) rounds to 6.28125); fold it to 0, as adjust_hue_raw does.
    h = h.masked_fill(h >= 2.0 * math.pi, 0.0)

    return torch.stack((h, s, v), dim=-3)


class HSVJitterStem(nn.Module):
    def __init__(self, out_channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(6, out_channels, 3, padding=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        hsv = rgb_to_hsv(images.clamp(0.0, 1.0))
        hsv = torch.cat([torch.cos(hsv[:, :1]), torch.sin(hsv[:, :1]), hsv[:, 1:]], dim=1)
        return self.conv(torch.cat([images, hsv[:, :3]], dim=1))
