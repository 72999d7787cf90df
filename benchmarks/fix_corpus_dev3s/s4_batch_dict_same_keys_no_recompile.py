# spec: {"model": "s4_batch_dict_same_keys_no_recompile.py:ContrastiveModel", "init": {"args": [8]}, "inputs": [{"dict": {"anchor": {"tensor": [4, 8]}, "positive": {"tensor": [4, 8]}}}], "variants": [{"inputs": [{"dict": {"anchor": {"tensor": [4, 8], "init": "rand"}, "positive": {"tensor": [4, 8], "init": "rand"}}}]}]}
import torch.nn.functional as F
from torch import nn


class ContrastiveModel(nn.Module):
    """SimCSE-style contrastive step on a batch dict whose keys are the same every step."""

    def __init__(self, dim, temperature=0.05):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.temperature = temperature

    def forward(self, batch):
        a = F.normalize(self.encoder(batch["anchor"]), dim=-1)
        p = F.normalize(self.encoder(batch["positive"]), dim=-1)
        return (a @ p.t()) / self.temperature
