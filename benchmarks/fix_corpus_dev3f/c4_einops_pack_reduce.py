# spec: {"model": "c4_einops_pack_reduce.py:PerceiverPool", "init": {"args": [16], "kwargs": {"num_latents": 4}}, "inputs": [{"tensor": [2, 3, 5, 16]}], "calls": 3}
import torch
from einops import pack, rearrange, reduce, unpack
from torch import nn


class PerceiverPool(nn.Module):
    """A perceiver-resampler pooling in lucidrains' style: leading dims packed with
    ``pack(..., "* n d")``, latents attend to the tokens, unpacked back, a masked ``reduce``."""

    def __init__(self, dim, num_latents=8, heads=2):
        super().__init__()
        self.heads = heads
        self.latents = nn.Parameter(torch.randn(num_latents, dim))
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(dim, dim * 2, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        x, ps = pack([x], "* n d")
        b = x.shape[0]
        latents = self.latents.unsqueeze(0).expand(b, -1, -1)
        q = self.to_q(self.norm(latents))
        k, v = self.to_kv(self.norm(x)).chunk(2, dim=-1)
        q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in (q, k, v))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        out = self.to_out(rearrange(out, "b h n d -> b n (h d)"))
        (out,) = unpack(out, ps, "* n d")
        return reduce(out, "... n d -> ... d", "mean")
