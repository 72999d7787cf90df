"""x-transformers: a continuous-input encoder with a mask and memory tokens."""

import torch
from x_transformers import ContinuousTransformerWrapper, Encoder


class Enc(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = ContinuousTransformerWrapper(
            dim_in=6, dim_out=4, max_seq_len=16, num_memory_tokens=2,
            attn_layers=Encoder(dim=16, depth=1, heads=2),
        )

    def forward(self, x, mask):
        return self.net(x, mask=mask)


def make():
    torch.manual_seed(0)
    return Enc(), (torch.randn(2, 7, 6), torch.ones(2, 7, dtype=torch.bool))
