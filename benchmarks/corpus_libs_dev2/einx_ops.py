"""einx: reductions, element-wise ops and a dot product written in einx notation."""

import einx
import torch


class Mixer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8))

    def forward(self, x):
        pooled = einx.mean("b [s] c", x)
        y = einx.dot("b s c1, c1 c2 -> b s c2", x, self.w)
        y = einx.add("b s c, b c", y, pooled)
        return einx.softmax("b s [c]", y) if hasattr(einx, "softmax") else y


def make():
    return Mixer(), (torch.randn(2, 5, 8),)
