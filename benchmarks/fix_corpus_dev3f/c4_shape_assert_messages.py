# spec: {"model": "c4_shape_assert_messages.py:PatchMerging", "init": {"args": [[8, 8], 4]}, "inputs": [{"tensor": [2, 64, 4]}], "calls": 3}
import torch
from torch import nn


class PatchMerging(nn.Module):
    """Swin's ``PatchMerging`` as in the original repo: asserts with f-string messages on the
    token count and evenness of H and W taken from ``self.input_resolution``."""

    def __init__(self, input_resolution, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.input_resolution = input_resolution
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        assert L == H * W, "input feature has wrong size"
        assert H % 2 == 0 and W % 2 == 0, f"x size ({H}*{W}) are not even."
        assert C == self.dim, f"expected {self.dim} channels, got {C}"
        x = x.view(B, H, W, C)
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1)
        x = x.view(B, -1, 4 * C)
        x = self.norm(x)
        return self.reduction(x)

    def extra_repr(self) -> str:
        return f"input_resolution={self.input_resolution}, dim={self.dim}"
