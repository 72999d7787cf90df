# spec: {"model": "c3_swin_window_pad.py:WindowAttentionBlock", "init": {"kwargs": {"dim": 16, "window_size": 4, "num_heads": 2}}, "inputs": [{"tensor": [2, 10, 10, 16]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


def window_partition(x, window_size: int):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size * window_size, C)


def window_reverse(windows, window_size: int, H: int, W: int):
    C = windows.shape[-1]
    x = windows.view(-1, H // window_size, W // window_size, window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)


class WindowAttentionBlock(nn.Module):
    """Swin-style block: pads H and W up to a multiple of the window when they do not divide."""

    def __init__(self, dim, window_size=7, num_heads=4):
        super().__init__()
        self.window_size = window_size
        self.num_heads = num_heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        shortcut = x
        x = self.norm(x)
        pad_r = (self.window_size - W % self.window_size) % self.window_size
        pad_b = (self.window_size - H % self.window_size) % self.window_size
        if pad_r > 0 or pad_b > 0:
            x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, Hp, Wp, _ = x.shape
        windows = window_partition(x, self.window_size)
        qkv = self.qkv(windows).reshape(windows.shape[0], -1, 3, self.num_heads, C // self.num_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = F.scaled_dot_product_attention(q, k, v)
        attn = attn.transpose(1, 2).reshape(windows.shape[0], -1, C)
        x = window_reverse(self.proj(attn), self.window_size, Hp, Wp)
        if pad_r > 0 or pad_b > 0:
            x = x[:, :H, :W, :].contiguous()
        return shortcut + x
