"""Small models for benchmarks/gpu_check.py: the spec forms a GPU user writes (a factory with
its own CPU inputs, an instance, a class with init), a training-only break, a step counter that
hits the recompile limit, and a custom op torch.compile cannot trace."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int = 64, drop_path: float = 0.0) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.drop_path = drop_path

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training and self.drop_path > 0:  # train only, as stochastic depth code is
            print("drop path", self.drop_path)  # a graph break torch reports only in train mode
        return x + self.mlp(self.norm(x))


class Tiny(nn.Module):
    def __init__(self, dim: int = 64, depth: int = 2, drop_path: float = 0.0) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, drop_path) for _ in range(depth)])
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for b in self.blocks:
            x = b(x)
        return self.head(x.mean(1))


def make_small():
    """The README's factory form: the model and its inputs, built on the CPU."""
    return Tiny(), (torch.randn(8, 16, 64),)


def make_train():
    """A factory that returns its model in train mode (stochastic depth breaks only there)."""
    return Tiny(drop_path=0.1).train(), ((torch.randn(8, 16, 64),), {})


instance = Tiny()


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(64, 64)
        self.step = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.step += 1
        return self.lin(x) * self.step


@torch.library.custom_op("gpu_check::scale", mutates_args=())
def library_scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


class UsesCustomOp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return library_scale(self.lin(x)) + 1
