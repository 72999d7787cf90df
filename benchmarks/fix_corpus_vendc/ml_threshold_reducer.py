# spec: {"model": "ml_threshold_reducer.py:ContrastiveEmbedder", "init": {"args": [8, 4]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [10], "dtype": "int64", "data": [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]}], "calls": 2}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/utils/loss_and_miner_utils.py
def get_matches_and_diffs(labels, ref_labels=None):
    if ref_labels is None:
        ref_labels = labels
    labels1 = labels.unsqueeze(1)
    labels2 = ref_labels.unsqueeze(0)
    matches = (labels1 == labels2).byte()
    diffs = matches ^ 1
    if ref_labels is labels:
        matches.fill_diagonal_(0)
    return matches, diffs


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/reducers/threshold_reducer.py
class ThresholdReducer:
    def __init__(self, low=None, high=None, collect_stats=False):
        assert (low is not None) or (
            high is not None
        ), "At least one of low or high must be specified"
        self.low = low
        self.high = high
        self.collect_stats = collect_stats

    def zero_loss(self, embeddings):
        return torch.sum(embeddings * 0)

    def pos_pair_reduction(self, losses, loss_indices, embeddings, labels):
        return self.element_reduction_helper(losses, embeddings)

    def neg_pair_reduction(self, losses, loss_indices, embeddings, labels):
        return self.element_reduction_helper(losses, embeddings)

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
        self.set_stats(low_condition, high_condition, num_past_filter)
        return loss

    def set_stats(self, low_condition, high_condition, num_past_filter):
        if self.collect_stats:
            self.num_past_filter = num_past_filter


class ContrastiveEmbedder(nn.Module):
    """Contrastive loss over all pairs (matrix form), each pair term reduced with a ThresholdReducer."""

    def __init__(self, in_dim, emb_dim, pos_margin=0.0, neg_margin=1.0):
        super().__init__()
        self.embed = nn.Linear(in_dim, emb_dim)
        self.reducer = ThresholdReducer(low=0.0)
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def forward(self, x, labels):
        emb = F.normalize(self.embed(x), dim=1)
        dist = torch.cdist(emb, emb)
        matches, diffs = get_matches_and_diffs(labels)
        pos_losses = (F.relu(dist - self.pos_margin) * matches).flatten()
        neg_losses = (F.relu(self.neg_margin - dist) * diffs).flatten()
        pos = self.reducer.pos_pair_reduction(pos_losses, None, emb, labels)
        neg = self.reducer.neg_pair_reduction(neg_losses, None, emb, labels)
        return pos + neg
