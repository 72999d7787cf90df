# spec: {"model": "s4_chunk_size_feed_forward.py:ChunkedFeedForward", "init": {"args": [8]}, "inputs": [{"tensor": [2, 12, 8]}, 4], "variants": [{"inputs": [{"tensor": [2, 12, 8]}, 6]}]}
import torch
from torch import nn


class ChunkedFeedForward(nn.Module):
    """Reformer-style chunked feed-forward over the sequence, chunk size given per call."""

    def __init__(self, dim):
        super().__init__()
        self.dense = nn.Linear(dim, 4 * dim)
        self.output = nn.Linear(4 * dim, dim)

    def forward(self, hidden_states, chunk_size):
        chunks = hidden_states.split(chunk_size, dim=1)
        outputs = [self.output(torch.relu(self.dense(chunk))) for chunk in chunks]
        return torch.cat(outputs, dim=1)
