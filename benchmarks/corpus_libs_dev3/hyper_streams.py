"""hyper-connections: residual streams expanded, mixed by hyper connections around a branch, reduced."""

import torch
from hyper_connections import get_init_and_expand_reduce_stream_functions


class Net(torch.nn.Module):
    def __init__(self, dim: int = 16, depth: int = 2) -> None:
        super().__init__()
        init_hc, self.expand, self.reduce = get_init_and_expand_reduce_stream_functions(4)
        self.layers = torch.nn.ModuleList(
            [init_hc(dim=dim, branch=torch.nn.Linear(dim, dim), layer_index=i) for i in range(depth)]
        )

    def forward(self, x):
        x = self.expand(x)
        for layer in self.layers:
            x = layer(x)
        return self.reduce(x)


def make():
    torch.manual_seed(0)
    return Net(), (torch.randn(2, 6, 16),)
