# spec: {"model": "debug_trace_id_uuid.py:ServedRanker", "init": {"args": [12]}, "inputs": [{"tensor": [5, 12]}]}
import uuid

import torch
from torch import nn


class ServedRanker(nn.Module):
    """A ranking model behind an inference service that tags each request with a trace id for its logs."""

    def __init__(self, dim):
        super().__init__()
        self.scorer = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.request_log = {}

    def forward(self, candidates):
        trace_id = uuid.uuid4().hex[:12]
        scores = self.scorer(candidates).squeeze(-1)
        self.request_log[trace_id] = tuple(candidates.shape)
        return scores.softmax(-1)
