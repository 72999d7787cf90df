# spec: {"model": "pml_threshold_reducer.py:TripletEmbedder", "init": {"args": [8, 4]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6, 8]}, {"tensor": [6, 8]}]}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/reducers/threshold_reducer.py
class ThresholdReducer(nn.Module):
    def __init__(self, low=None, high=None):
        super().__init__()
        assert (low is not None) or (
            high is not None
        ), "At least one of low or high must be specified"
        self.low = low
        self.high = high

    def zero_loss(self, embeddings):
        return torch.sum(embeddings * 0)

    def element_reduction_helper(self, losses, embeddings):
        low_condition, high_condition = None, None
        if self.low is not None:
            low_condition = losses > self.low
            losses = losses[low_condition]
        if self.high is not None:
            high_condition = losses < self.high
            losses = losses[high_condition]
        num_past_filter = len(losses)
        if num_past_filter >= 1:
            loss = torch.mean(losses)
        else:
            loss = self.zero_loss(embeddings)
        return loss


class TripletEmbedder(nn.Module):
    def __init__(self, in_dim, embed_dim, margin=0.2):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, embed_dim))
        self.margin = margin
        self.reducer = ThresholdReducer(low=0.0)

    def forward(self, anchor, positive, negative):
        a, p, n = (F.normalize(self.trunk(t), dim=-1) for t in (anchor, positive, negative))
        losses = F.relu((a - p).pow(2).sum(-1) - (a - n).pow(2).sum(-1) + self.margin)
        return self.reducer.element_reduction_helper(losses, a)
