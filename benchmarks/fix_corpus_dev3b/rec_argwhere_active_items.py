# spec: {"model": "rec_argwhere_active_items.py:SessionRecommender", "init": {"args": [20, 8]}, "inputs": [{"tensor": [20], "init": "rand"}]}
import torch
from torch import nn


class SessionRecommender(nn.Module):
    """Session-based recommendation: the items clicked in the session (argwhere of the click
    vector) are pooled into a user vector that scores every item."""

    def __init__(self, items, dim):
        super().__init__()
        self.emb = nn.Embedding(items, dim)

    def forward(self, clicks):
        active = torch.argwhere(clicks > 0.5).squeeze(1)
        user = self.emb(active).mean(0)
        return self.emb.weight @ user
