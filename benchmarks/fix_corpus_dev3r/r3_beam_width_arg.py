# spec: {"model": "r3_beam_width_arg.py:BeamExpand", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "kwargs": {"num_beams": 2}, "variants": [{"inputs": [{"tensor": [2, 8]}], "kwargs": {"num_beams": 3}}, {"inputs": [{"tensor": [2, 8]}], "kwargs": {"num_beams": 4}}]}
import torch
from torch import nn


class BeamExpand(nn.Module):
    """Expands encoder states for beam search and scores each beam."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, enc, num_beams=1):
        expanded = enc.repeat_interleave(num_beams, dim=0)
        scores = self.score(expanded).view(-1, num_beams)
        return scores.log_softmax(-1)
