# spec: {"model": "kge_transe_random_corrupt.py:TransE", "init": {"args": [30, 5, 16]}, "inputs": [{"tensor": [8, 3], "dtype": "int64", "init": "randint", "low": 0, "high": 5}], "mode": "train"}
import random

import torch
import torch.nn.functional as F
from torch import nn


class TransE(nn.Module):
    """TransE knowledge-graph embedding with margin loss; negatives corrupt head or tail chosen by Python's random."""

    def __init__(self, n_entities, n_relations, dim, margin=1.0):
        super().__init__()
        self.ent = nn.Embedding(n_entities, dim)
        self.rel = nn.Embedding(n_relations, dim)
        self.n_entities = n_entities
        self.margin = margin

    def score(self, h, r, t):
        return (self.ent(h) + self.rel(r) - self.ent(t)).norm(p=1, dim=-1)

    def corrupt(self, triples):
        neg = triples.clone()
        for i in range(neg.shape[0]):
            col = 0 if random.random() < 0.5 else 2
            neg[i, col] = random.randrange(self.n_entities)
        return neg

    def forward(self, triples):
        neg = self.corrupt(triples)
        pos_s = self.score(triples[:, 0], triples[:, 1], triples[:, 2])
        neg_s = self.score(neg[:, 0], neg[:, 1], neg[:, 2])
        return F.relu(self.margin + pos_s - neg_s).mean()
