# spec: {"model": "ps_stream_posemb_offset.py:StreamingEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 4, 16]}], "calls": 4}
import torch
from torch import nn


class StreamingEncoder(nn.Module):
    """Streaming (chunked) transformer encoder: absolute position ids continue from the previous chunk via a counter advanced in a helper method."""

    def __init__(self, dim, max_pos=64):
        super().__init__()
        self.pos_emb = nn.Embedding(max_pos, dim)
        self.layer = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
        self.offset = 0

    def _advance(self, n):
        self.offset += n

    def forward(self, chunk):
        n = chunk.size(1)
        pos = torch.arange(self.offset, self.offset + n, device=chunk.device)
        h = self.layer(chunk + self.pos_emb(pos)[None])
        self._advance(n)
        return h
