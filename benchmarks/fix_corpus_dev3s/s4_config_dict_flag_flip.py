# spec: {"model": "s4_config_dict_flag_flip.py:Reranker", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"dict": {"normalize": true, "temperature": 2}}], "variants": [{"inputs": [{"tensor": [4, 8]}, {"dict": {"normalize": false, "temperature": 2}}]}]}
import torch.nn.functional as F
from torch import nn


class Reranker(nn.Module):
    """A retrieval scorer whose per-request options come in a config dict."""

    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim)

    def forward(self, emb, options):
        q = self.query(emb)
        if options["normalize"]:
            q = F.normalize(q, dim=-1)
            emb = F.normalize(emb, dim=-1)
        scores = q @ emb.t()
        return scores / options["temperature"]
