# spec: {"model": "ml_triplet_margin_miner.py:EmbedderWithTripletMining", "init": {"args": [8, 4]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12], "dtype": "int64", "data": [0, 0, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2]}], "calls": 2}
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


def get_all_triplets_indices(labels, ref_labels=None):
    all_matches, all_diffs = get_matches_and_diffs(labels, ref_labels)

    if (
        all_matches.shape[0] * all_matches.shape[1] * all_matches.shape[1]
        < torch.iinfo(torch.int32).max
    ):
        # torch.nonzero is not supported for tensors with more than INT_MAX elements
        return get_all_triplets_indices_vectorized_method(all_matches, all_diffs)

    raise NotImplementedError("loop method not vendored")


def get_all_triplets_indices_vectorized_method(all_matches, all_diffs):
    triplets = all_matches.unsqueeze(2) * all_diffs.unsqueeze(1)
    return torch.where(triplets)


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/distances/lp_distance.py (p=2, normalized)
class LpDistance:
    is_inverted = False

    def __call__(self, query_emb, ref_emb=None):
        query_emb = F.normalize(query_emb, p=2, dim=1)
        ref_emb = query_emb if ref_emb is None else F.normalize(ref_emb, p=2, dim=1)
        return torch.cdist(query_emb, ref_emb, p=2)


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/miners/triplet_margin_miner.py
class TripletMarginMiner:
    """
    Returns triplets that violate the margin
    """

    def __init__(self, margin=0.2, type_of_triplets="all"):
        self.margin = margin
        self.type_of_triplets = type_of_triplets
        self.distance = LpDistance()

    def mine(self, embeddings, labels, ref_emb, ref_labels):
        anchor_idx, positive_idx, negative_idx = get_all_triplets_indices(
            labels, ref_labels
        )
        mat = self.distance(embeddings, ref_emb)
        ap_dist = mat[anchor_idx, positive_idx]
        an_dist = mat[anchor_idx, negative_idx]
        triplet_margin = (
            ap_dist - an_dist if self.distance.is_inverted else an_dist - ap_dist
        )

        if self.type_of_triplets == "easy":
            threshold_condition = triplet_margin > self.margin
        else:
            threshold_condition = triplet_margin <= self.margin
            if self.type_of_triplets == "hard":
                threshold_condition &= triplet_margin <= 0
            elif self.type_of_triplets == "semihard":
                threshold_condition &= triplet_margin > 0

        return (
            anchor_idx[threshold_condition],
            positive_idx[threshold_condition],
            negative_idx[threshold_condition],
        )


class EmbedderWithTripletMining(nn.Module):
    """Metric-learning trunk + embedder; the training step mines triplets and applies a margin loss."""

    def __init__(self, in_dim, emb_dim, margin=0.2):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, emb_dim))
        self.miner = TripletMarginMiner(margin=margin, type_of_triplets="all")
        self.margin = margin

    def forward(self, x, labels):
        emb = self.trunk(x)
        a, p, n = self.miner.mine(emb, labels, emb, labels)
        dist = self.miner.distance(emb, emb)
        losses = F.relu(dist[a, p] - dist[a, n] + self.margin)
        return losses.sum() / (losses.numel() + 1e-8)
