# spec: {"model": "pml_all_pairs_contrastive.py:EmbedderWithContrastiveLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [8, 8]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
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


def get_all_pairs_indices(labels, ref_labels=None):
    """
    Given a tensor of labels, this will return 4 tensors.
    The first 2 tensors are the indices which form all positive pairs
    The second 2 tensors are the indices which form all negative pairs
    """
    matches, diffs = get_matches_and_diffs(labels, ref_labels)
    a1_idx, p_idx = torch.where(matches)
    a2_idx, n_idx = torch.where(diffs)
    return a1_idx, p_idx, a2_idx, n_idx


class EmbedderWithContrastiveLoss(nn.Module):
    def __init__(self, in_dim, embed_dim, pos_margin=0.0, neg_margin=1.0):
        super().__init__()
        self.trunk = nn.Linear(in_dim, embed_dim)
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def forward(self, x, labels):
        embeddings = F.normalize(self.trunk(x), dim=-1)
        a1, p, a2, n = get_all_pairs_indices(labels)
        mat = torch.cdist(embeddings, embeddings)
        pos_loss = F.relu(mat[a1, p] - self.pos_margin)
        neg_loss = F.relu(self.neg_margin - mat[a2, n])
        return embeddings, pos_loss.mean() + neg_loss.mean()
