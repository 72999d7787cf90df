"""diffusers: a tiny UNet2DModel called on noisy images with a tensor timestep."""

import torch
from diffusers import UNet2DModel


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.unet = UNet2DModel(
            sample_size=8,
            in_channels=2,
            out_channels=2,
            layers_per_block=1,
            block_out_channels=(8, 16),
            down_block_types=("DownBlock2D", "AttnDownBlock2D"),
            up_block_types=("AttnUpBlock2D", "UpBlock2D"),
            norm_num_groups=4,
            attention_head_dim=8,
        )

    def forward(self, x, t):
        return self.unet(x, t).sample


def make():
    return Model(), (torch.randn(1, 2, 8, 8), torch.tensor([10]))
