# spec: {"model": "c4_gat_scatter_softmax.py:GATConv", "init": {"args": [8, 4], "kwargs": {"heads": 2}}, "inputs": [{"tensor": [5, 8]}, {"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 5}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


def scatter_softmax(src, index, num_nodes):
    """torch_geometric.utils.softmax without torch_scatter: max and sum by ``scatter_reduce``."""
    size = (num_nodes,) + tuple(src.shape[1:])
    expanded = index.view(-1, *([1] * (src.dim() - 1))).expand_as(src)
    src_max = torch.full(size, float("-inf"), dtype=src.dtype, device=src.device)
    src_max = src_max.scatter_reduce(0, expanded, src, reduce="amax", include_self=True)
    out = (src - src_max.index_select(0, index)).exp()
    out_sum = torch.zeros(size, dtype=src.dtype, device=src.device).scatter_add(0, expanded, out)
    return out / (out_sum.index_select(0, index) + 1e-16)


class GATConv(nn.Module):
    """A graph attention layer (PyG style): per-head attention logits on edges, a softmax over
    each target's incoming edges, messages aggregated into a tensor sized by ``x.size(0)``."""

    def __init__(self, in_channels, out_channels, heads=1, concat=True, negative_slope=0.2):
        super().__init__()
        self.heads = heads
        self.out_channels = out_channels
        self.concat = concat
        self.negative_slope = negative_slope
        self.lin = nn.Linear(in_channels, heads * out_channels, bias=False)
        self.att_src = nn.Parameter(torch.randn(1, heads, out_channels))
        self.att_dst = nn.Parameter(torch.randn(1, heads, out_channels))

    def forward(self, x, edge_index):
        H, C = self.heads, self.out_channels
        num_nodes = x.size(0)
        x = self.lin(x).view(-1, H, C)
        alpha_src = (x * self.att_src).sum(dim=-1)
        alpha_dst = (x * self.att_dst).sum(dim=-1)
        src, dst = edge_index
        alpha = alpha_src.index_select(0, src) + alpha_dst.index_select(0, dst)
        alpha = F.leaky_relu(alpha, self.negative_slope)
        alpha = scatter_softmax(alpha, dst, num_nodes)
        alpha = F.dropout(alpha, p=0.1, training=self.training)
        msg = x.index_select(0, src) * alpha.unsqueeze(-1)
        out = x.new_zeros(num_nodes, H, C).index_add_(0, dst, msg)
        if self.concat:
            return out.view(-1, H * C)
        return out.mean(dim=1)
