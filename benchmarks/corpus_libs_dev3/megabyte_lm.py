"""MEGABYTE-pytorch: a two-stage byte-level language model computing its training loss."""

import torch
from MEGABYTE_pytorch import MEGABYTE


class ByteLM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lm = MEGABYTE(
            num_tokens=64, dim=(32, 16), depth=(1, 1), max_seq_len=(4, 4), dim_head=8, heads=2
        )

    def forward(self, ids):
        return self.lm(ids, return_loss=True)


def make():
    torch.manual_seed(0)
    return ByteLM(), (torch.randint(0, 64, (2, 16)),)
