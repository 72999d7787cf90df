"""x-transformers: a small decoder-only language model."""

import torch
from x_transformers import Decoder, TransformerWrapper


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lm = TransformerWrapper(
            num_tokens=100, max_seq_len=32, attn_layers=Decoder(dim=32, depth=1, heads=2)
        )

    def forward(self, ids):
        return self.lm(ids)


def make():
    return Model(), (torch.randint(0, 100, (2, 12)),)
