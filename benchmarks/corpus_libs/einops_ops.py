"""einops: rearrange / reduce / repeat in forward."""

import torch
from einops import rearrange, reduce, repeat


class Model(torch.nn.Module):
    def forward(self, x):
        y = rearrange(x, "b (h d) n -> b h n d", h=2)
        y = reduce(y, "b h n d -> b n d", "mean")
        return repeat(y, "b n d -> b n d r", r=2)


def make():
    return Model(), (torch.randn(2, 8, 5),)
