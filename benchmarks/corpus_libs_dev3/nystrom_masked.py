"""nystrom-attention: Nystromformer over padded sequences with a key padding mask."""

import torch
from nystrom_attention import Nystromformer


class DocEncoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = Nystromformer(dim=32, depth=1, dim_head=8, heads=4, num_landmarks=4)

    def forward(self, x, mask):
        return self.net(x, mask=mask)


def make():
    torch.manual_seed(0)
    mask = torch.ones(2, 10, dtype=torch.bool)
    mask[1, 7:] = False
    return DocEncoder(), (torch.randn(2, 10, 32), mask)
