# spec: {"model": "det_yolo_decode_grid_cache.py:YoloDecode", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8, 6, 6]}]}
import torch
from torch import nn


class YoloDecode(nn.Module):
    """YOLOv5-style Detect layer decode: the grid is cached per feature size, rebuilt when the
    cached grid's shape differs."""

    def __init__(self, ch, na):
        super().__init__()
        self.na = na
        self.no = 6
        self.m = nn.Conv2d(ch, na * self.no, 1)
        self.register_buffer("anchor_grid", torch.rand(1, na, 1, 1, 2) * 4)
        self.grid = torch.zeros(1)
        self.stride = 8.0

    @staticmethod
    def _make_grid(nx, ny):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        return torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()

    def forward(self, x):
        bs, _, ny, nx = x.shape
        p = self.m(x).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        if self.grid.shape[2:4] != p.shape[2:4]:
            self.grid = self._make_grid(nx, ny)
        y = p.sigmoid()
        xy = (y[..., :2] * 2 - 0.5 + self.grid) * self.stride
        wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid
        return torch.cat((xy, wh, y[..., 4:]), -1).view(bs, -1, self.no)
