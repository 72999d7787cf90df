# spec: {"model": "mae_masked_tokens_decoded.py:MaskedTokenDecoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}, {"tensor": [2, 10], "dtype": "bool", "p": 0.5}]}
from torch import nn


class MaskedTokenDecoder(nn.Module):
    """SimMIM-style: the masked tokens ([B, T, D] features, a [B, T] mask) go through a
    decoder and are returned with their loss; the selection flows on (no rewrite applies)."""

    def __init__(self, dim):
        super().__init__()
        self.decoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, tokens, mask):
        masked = tokens[mask]
        recon = self.decoder(masked)
        loss = (recon - masked).pow(2).mean()
        return recon, loss
