# spec: {"model": "r3_past_kv_none_tuple.py:DecoderLayer", "init": {"args": [8]}, "inputs": [{"tensor": [1, 2, 8]}], "variants": [{"inputs": [{"tensor": [1, 1, 8]}, {"tuple": [{"tensor": [1, 2, 8]}, {"tensor": [1, 2, 8]}]}]}, {"inputs": [{"tensor": [1, 1, 8]}, {"tuple": [{"tensor": [1, 3, 8]}, {"tensor": [1, 3, 8]}]}]}]}
import torch
from torch import nn


class DecoderLayer(nn.Module):
    """A decoder layer with an optional past key/value tuple (None on the prompt)."""

    def __init__(self, dim):
        super().__init__()
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, x, past_key_value=None):
        k, v = self.k(x), self.v(x)
        if past_key_value is not None:
            k = torch.cat([past_key_value[0], k], 1)
            v = torch.cat([past_key_value[1], v], 1)
        att = (x @ k.transpose(1, 2)).softmax(-1)
        return att @ v, (k, v)
