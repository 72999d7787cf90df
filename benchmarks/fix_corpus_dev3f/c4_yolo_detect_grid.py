# spec: {"model": "c4_yolo_detect_grid.py:Detect", "init": {"kwargs": {"nc": 4, "anchors": [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119]], "ch": [8, 16]}}, "inputs": [[{"tensor": [1, 8, 8, 8]}, {"tensor": [1, 16, 4, 4]}]], "calls": 3}
import torch
from torch import nn


class Detect(nn.Module):
    """YOLOv5's ``Detect`` in inference: each level's output viewed as (bs, na, ny, nx, no), a
    grid and anchor grid made from ``ny, nx`` of the shape, boxes decoded, levels concatenated."""

    def __init__(self, nc=80, anchors=(), ch=(), strides=(8, 16)):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
        self.register_buffer("stride", torch.tensor(strides, dtype=torch.float32))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def _make_grid(self, nx=20, ny=20, i=0):
        d = self.anchors[i].device
        t = self.anchors[i].dtype
        shape = 1, self.na, ny, nx, 2
        y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)
        yv, xv = torch.meshgrid(y, x, indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid

    def forward(self, x):
        z = []
        x = list(x)  # the caller's list of levels is left as it was
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                grid, anchor_grid = self._make_grid(nx, ny, i)
                xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
                xy = (xy * 2 + grid) * self.stride[i]
                wh = (wh * 2) ** 2 * anchor_grid
                y = torch.cat((xy, wh, conf), 4)
                z.append(y.view(bs, self.na * nx * ny, self.no))
        return x if self.training else (torch.cat(z, 1), x)
