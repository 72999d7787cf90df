import torch
from torch import nn


class KVCache:
    def __init__(self) -> None:
        self.ready = False
        self.keys = None

    def update(self, k: torch.Tensor) -> torch.Tensor:
        if not self.ready:
            self.keys = torch.zeros_like(k)
            self.ready = True
        self.keys = self.keys + k
        return self.keys


class CachedDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = nn.Linear(8, 8)
        self.cache = KVCache()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keys = self.cache.update(self.k(x))
        return x + keys
