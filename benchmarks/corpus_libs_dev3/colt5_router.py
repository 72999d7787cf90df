"""CoLT5-attention: a conditionally routed feed-forward (coordinate-descent router picks heavy tokens)."""

import torch
from colt5_attention import ConditionalRoutedFeedForward


class RoutedFF(torch.nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.ff = ConditionalRoutedFeedForward(dim, num_heavy_tokens=4, light_ff_mult=0.5, heavy_ff_mult=2)

    def forward(self, x):
        return self.ff(x)


def make():
    torch.manual_seed(0)
    return RoutedFF(), (torch.randn(2, 12, 32),)
