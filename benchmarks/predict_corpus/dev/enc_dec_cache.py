import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, cache=None) -> torch.Tensor:
        h = self.lin(x)
        if cache is not None:
            h = h + cache.mean()
        return x + h


class EncDec(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.ModuleList([Block() for _ in range(2)])
        self.dec = nn.ModuleList([Block() for _ in range(2)])
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for blk in self.enc:
            print("enc", x.shape)
            x = blk(x)
        memory = x * 1.0
        for blk in self.dec:
            print("dec", x.shape)
            x = blk(x, cache=memory)
        return self.head(x)
