# spec: {"model": "c3_block_kwargs_dict.py:ConvNeXtStage", "init": {"args": [8], "kwargs": {"depth": 2, "block_kwargs": {"kernel_size": 5, "ls_init_value": 1e-6}}}, "inputs": [{"tensor": [2, 8, 10, 10]}], "calls": 3}
import torch
from torch import nn


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, kernel_size=7, ls_init_value=1e-6, mlp_ratio=4):
        super().__init__()
        self.conv_dw = nn.Conv2d(dim, dim, kernel_size, padding=kernel_size // 2, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim))
        self.gamma = nn.Parameter(ls_init_value * torch.ones(dim)) if ls_init_value > 0 else None

    def forward(self, x):
        shortcut = x
        x = self.conv_dw(x).permute(0, 2, 3, 1)
        x = self.mlp(self.norm(x))
        if self.gamma is not None:
            x = x * self.gamma
        return shortcut + x.permute(0, 3, 1, 2)


class ConvNeXtStage(nn.Module):
    """Blocks built from a kwargs dict; forward passes extra kwargs through unchanged."""

    def __init__(self, dim, depth=2, block_kwargs=None):
        super().__init__()
        block_kwargs = dict(block_kwargs or {})
        self.blocks = nn.Sequential(*[ConvNeXtBlock(dim, **block_kwargs) for _ in range(depth)])
        self.head_kwargs = {"start_dim": 1}

    def forward(self, x, **kwargs):
        x = self.blocks(x)
        x = x.mean(dim=(2, 3), keepdim=True)
        return torch.flatten(x, **self.head_kwargs)
