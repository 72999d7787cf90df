# spec: {"model": "speech_spk_norm_print.py:XVectorHead", "init": {"args": [24, 16]}, "inputs": [{"tensor": [3, 24, 50]}]}
import torch
from torch import nn


class XVectorHead(nn.Module):
    """TDNN layers with statistics pooling; the author still prints the embedding norms while debugging."""

    def __init__(self, n_feats, dim):
        super().__init__()
        self.tdnn = nn.Sequential(
            nn.Conv1d(n_feats, 32, 5, dilation=1), nn.ReLU(),
            nn.Conv1d(32, 32, 3, dilation=2), nn.ReLU(),
        )
        self.embed = nn.Linear(64, dim)

    def forward(self, feats):
        h = self.tdnn(feats)
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)
        emb = self.embed(stats)
        print(f"x-vector norms: {emb.norm(dim=-1)}")
        return nn.functional.normalize(emb, dim=-1)
