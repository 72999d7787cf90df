"""einops: pack/unpack a class token with patches and reduce by a pattern chosen per call."""

import torch
from einops import pack, rearrange, reduce, repeat, unpack


class PatchPool(torch.nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.cls = torch.nn.Parameter(torch.randn(dim))
        self.mix = torch.nn.Linear(dim, dim)

    def forward(self, img, pool: str):
        patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2)
        cls = repeat(self.cls, "d -> b d", b=img.shape[0])
        x, ps = pack([cls, patches], "b * d")
        x = self.mix(x)
        cls, patches = unpack(x, ps, "b * d")
        return cls + reduce(patches, "b n d -> b d", pool)


SPEC = {"variants": [{"inputs": [{"tensor": [2, 2, 8, 8]}, "max"]}]}


def make():
    return PatchPool(), (torch.randn(2, 2, 8, 8), "mean")
