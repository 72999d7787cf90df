# spec: {"model": "shp_bpr_nonzero_pos_neg.py:PointwiseRankingLoss", "init": {"args": [50, 12]}, "inputs": [{"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 50}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 50}, {"tensor": [16], "dtype": "int64", "data": [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class PointwiseRankingLoss(nn.Module):
    """Implicit-feedback recommender (RecBole style): a matrix-factorisation score per (user, item)
    pair, the log-sigmoid loss of the positive and of the negative pairs, found with ``nonzero``,
    each averaged over its own pairs."""

    def __init__(self, n_entities, embedding_size, neg_weight=1.0):
        super().__init__()
        self.user_embedding = nn.Embedding(n_entities, embedding_size)
        self.item_embedding = nn.Embedding(n_entities, embedding_size)
        self.neg_weight = neg_weight

    def forward(self, user, item, label):
        scores = (self.user_embedding(user) * self.item_embedding(item)).sum(-1)
        pos_idx = torch.nonzero(label == 1, as_tuple=True)[0]
        neg_idx = torch.nonzero(label == 0, as_tuple=True)[0]
        pos_scores = scores.index_select(0, pos_idx)
        neg_scores = scores[neg_idx]
        pos_loss = -F.logsigmoid(pos_scores).mean()
        neg_loss = -F.logsigmoid(-neg_scores).mean()
        return pos_loss + self.neg_weight * neg_loss
