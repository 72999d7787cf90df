# spec: {"model": "swin_attn_mask_cache_sizes.py:ShiftedWindowAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 8, 8, 16]}], "variants": [{"inputs": [{"tensor": [1, 12, 12, 16]}]}, {"inputs": [{"tensor": [1, 16, 16, 16]}]}]}
import torch
from torch import nn


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(-1, ws * ws, c)


class ShiftedWindowAttention(nn.Module):
    """Swin block attention with shifted windows; the shift mask is cached per input resolution in a dict on self."""

    def __init__(self, dim, window=4, shift=2, heads=2):
        super().__init__()
        self.window, self.shift = window, shift
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mask_cache = {}

    def get_mask(self, h, w):
        key = (h, w)
        if key not in self.mask_cache:
            img_mask = torch.zeros(1, h, w, 1)
            cnt = 0
            for hs in (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None)):
                for wsl in (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None)):
                    img_mask[:, hs, wsl, :] = cnt
                    cnt += 1
            mw = window_partition(img_mask, self.window).squeeze(-1)
            diff = mw[:, None, :] - mw[:, :, None]
            self.mask_cache[key] = diff.ne(0)
        return self.mask_cache[key]

    def forward(self, x):
        b, h, w, c = x.shape
        shifted = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = window_partition(shifted, self.window)
        mask = self.get_mask(h, w).repeat(b, 1, 1).repeat_interleave(self.attn.num_heads, 0)
        out, _ = self.attn(win, win, win, attn_mask=mask, need_weights=False)
        out = out.view(b, h // self.window, w // self.window, self.window, self.window, c)
        out = out.permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return torch.roll(out, shifts=(self.shift, self.shift), dims=(1, 2))
