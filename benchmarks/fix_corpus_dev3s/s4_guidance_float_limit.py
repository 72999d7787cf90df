# spec: {"model": "s4_guidance_float_limit.py:CFGDenoiser", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}, 1.0], "variants": [{"inputs": [{"tensor": [2, 4, 8, 8]}, 1.5]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 2.0]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 2.5]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 3.0]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 3.5]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 4.0]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 4.5]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 5.0]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 5.5]}, {"inputs": [{"tensor": [2, 4, 8, 8]}, 6.0]}]}
import torch
from torch import nn


class CFGDenoiser(nn.Module):
    """Classifier-free guidance swept over scales by a UI slider: one float per call."""

    def __init__(self, channels):
        super().__init__()
        self.unet = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x, cond_scale):
        uncond, cond = self.unet(x).chunk(2)
        return uncond + (cond - uncond) * cond_scale
