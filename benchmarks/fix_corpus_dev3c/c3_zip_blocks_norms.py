# spec: {"model": "c3_zip_blocks_norms.py:HierarchicalEncoder", "init": {"args": [[4, 8, 16]]}, "inputs": [{"tensor": [2, 4, 16, 16]}], "calls": 3}
from torch import nn


class HierarchicalEncoder(nn.Module):
    """Stages and their output norms walked together with ``zip``; features returned as a list."""

    def __init__(self, widths):
        super().__init__()
        self.stages = nn.ModuleList(
            nn.Sequential(nn.Conv2d(a, b, 3, stride=2, padding=1), nn.GELU()) for a, b in zip(widths[:-1], widths[1:])
        )
        self.norms = nn.ModuleList(nn.GroupNorm(1, b) for b in widths[1:])
        self.out_indices = tuple(range(len(self.stages)))

    def forward(self, x):
        features = []
        for i, (stage, norm) in enumerate(zip(self.stages, self.norms)):
            x = stage(x)
            if i in self.out_indices:
                features.append(norm(x))
        return features
