# spec: {"model": "sched_sampling_step_attr.py:ScheduledSamplingDecoder", "init": {"args": [12, 16]}, "inputs": [{"tensor": [2, 5], "dtype": "int64", "init": "randint", "low": 0, "high": 12}], "mode": "train", "calls": 4}
import math

import torch
import torch.nn as nn


class ScheduledSamplingDecoder(nn.Module):
    """Bengio et al. scheduled sampling: the teacher-forcing ratio decays with the module's step count."""

    def __init__(self, vocab, dim, k=2.0):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.Linear(2 * dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.k = k
        self.step = 0

    def forward(self, targets):
        tf_ratio = self.k / (self.k + math.exp(self.step / self.k))
        self.step += 1
        h = torch.zeros(targets.size(0), self.emb.embedding_dim)
        prev = targets[:, 0]
        logits = []
        for t in range(1, targets.size(1)):
            h = torch.tanh(self.cell(torch.cat([self.emb(prev), h], -1)))
            step_logits = self.out(h)
            logits.append(step_logits)
            use_gold = torch.rand(targets.size(0)) < tf_ratio
            prev = torch.where(use_gold, targets[:, t], step_logits.argmax(-1))
        return torch.stack(logits, 1)
