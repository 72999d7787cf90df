# spec: {"model": "s4_num_heads_kwarg_view.py:HeadSplitter", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}], "kwargs": {"num_heads": 4}, "variants": [{"inputs": [{"tensor": [2, 5, 16]}], "kwargs": {"num_heads": 2}}, {"inputs": [{"tensor": [2, 5, 16]}], "kwargs": {"num_heads": 8}}]}
from torch import nn


class HeadSplitter(nn.Module):
    """Grouped attention probe: the number of heads to split into is chosen per call."""

    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)

    def forward(self, x, num_heads=4):
        b, n, d = x.shape
        q = self.to_q(x).view(b, n, num_heads, d // num_heads).transpose(1, 2)
        return (q * q).sum(-1).softmax(-1)
