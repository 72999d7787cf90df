# spec: {"model": "r3_lengths_list_values.py:PadMasker", "init": {"args": [8]}, "inputs": [{"tensor": [3, 6, 8]}, [6, 4, 2]], "variants": [{"inputs": [{"tensor": [3, 6, 8]}, [5, 5, 3]]}, {"inputs": [{"tensor": [3, 6, 8]}, [6, 1, 1]]}]}
import torch
from torch import nn


class PadMasker(nn.Module):
    """Zeroes padded frames from a Python list of lengths (an ASR collate's output)."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        h = self.fc(x)
        mask = torch.zeros(h.shape[:2], dtype=torch.bool)
        for i, n in enumerate(lengths):
            mask[i, :n] = True
        return h * mask.unsqueeze(-1)
