# spec: {"model": "diff_unet_cfg_rescale.py:GuidedDenoiser", "inputs": [{"tensor": [1, 3, 16, 16]}, {"tensor": [1], "dtype": "int64", "data": [500]}]}
import torch
from diffusers import UNet2DModel
from torch import nn


class GuidedDenoiser(nn.Module):
    """A tiny diffusers UNet2DModel (random weights) with CFG and a guidance-rescale fallback."""

    def __init__(self, guidance_scale=5.0, rescale=0.7):
        super().__init__()
        self.unet = UNet2DModel(
            sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
            block_out_channels=(16, 32), down_block_types=("DownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "UpBlock2D"), norm_num_groups=8, num_class_embeds=2,
        )
        self.guidance_scale = guidance_scale
        self.rescale = rescale

    def forward(self, sample, timestep):
        x = torch.cat([sample, sample])
        labels = torch.tensor([0, 1])
        eps_uncond, eps_cond = self.unet(x, timestep.repeat(2), class_labels=labels).sample.chunk(2)
        eps = eps_uncond + self.guidance_scale * (eps_cond - eps_uncond)
        std_ratio = eps_cond.std() / eps.std()
        if std_ratio < 1.0:
            eps = self.rescale * eps * std_ratio + (1 - self.rescale) * eps
        return eps
