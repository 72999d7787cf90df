"""linformer: a low-rank self-attention encoder over a fixed sequence length."""

import torch
from linformer import Linformer


class Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = Linformer(dim=32, seq_len=16, depth=2, heads=4, k=8)
        self.head = torch.nn.Linear(32, 2)

    def forward(self, x):
        return self.head(self.net(x).mean(dim=1))


def make():
    torch.manual_seed(0)
    return Encoder(), (torch.randn(2, 16, 32),)
