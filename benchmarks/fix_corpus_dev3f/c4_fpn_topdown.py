# spec: {"model": "c4_fpn_topdown.py:FeaturePyramidNetwork", "init": {"args": [[4, 8, 16], 8]}, "inputs": [{"dict": {"c3": {"tensor": [1, 4, 16, 16]}, "c4": {"tensor": [1, 8, 8, 8]}, "c5": {"tensor": [1, 16, 4, 4]}}}], "calls": 3}
from collections import OrderedDict

import torch.nn.functional as F
from torch import nn


class FeaturePyramidNetwork(nn.Module):
    """torchvision's FPN: inner and layer blocks picked by index, the top-down pathway walked
    with ``range(len(x) - 2, -1, -1)`` and each upsample sized to the lateral's shape."""

    def __init__(self, in_channels_list, out_channels, extra_pool=True):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(nn.Conv2d(in_channels, out_channels, 1))
            self.layer_blocks.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))
        self.extra_pool = extra_pool

    def get_result_from_inner_blocks(self, x, idx):
        num_blocks = len(self.inner_blocks)
        if idx < 0:
            idx += num_blocks
        out = x
        for i, module in enumerate(self.inner_blocks):
            if i == idx:
                out = module(x)
        return out

    def get_result_from_layer_blocks(self, x, idx):
        num_blocks = len(self.layer_blocks)
        if idx < 0:
            idx += num_blocks
        out = x
        for i, module in enumerate(self.layer_blocks):
            if i == idx:
                out = module(x)
        return out

    def forward(self, x):
        names = list(x.keys())
        x = list(x.values())
        last_inner = self.get_result_from_inner_blocks(x[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(x) - 2, -1, -1):
            inner_lateral = self.get_result_from_inner_blocks(x[idx], idx)
            feat_shape = inner_lateral.shape[-2:]
            inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            last_inner = inner_lateral + inner_top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_pool:
            names.append("pool")
            results.append(F.max_pool2d(results[-1], 1, 2, 0))
        return OrderedDict([(k, v) for k, v in zip(names, results)])
