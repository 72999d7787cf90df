# spec: {"model": "ml_supcon_loss.py:SupConProjectionHead", "init": {"args": [8, 6]}, "inputs": [{"tensor": [8, 8]}, {"tensor": [8], "dtype": "int64", "data": [0, 1, 0, 1, 2, 2, 0, 1]}], "calls": 2}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/utils/loss_and_miner_utils.py
def logsumexp(x, keep_mask=None, add_one=True, dim=1):
    if keep_mask is not None:
        x = x.masked_fill(~keep_mask, torch.finfo(x.dtype).min)
    if add_one:
        zeros = torch.zeros(x.size(dim - 1), dtype=x.dtype, device=x.device).unsqueeze(
            dim
        )
        x = torch.cat([x, zeros], dim=dim)

    output = torch.logsumexp(x, dim=dim, keepdim=True)
    if keep_mask is not None:
        output = output.masked_fill(~torch.any(keep_mask, dim=dim, keepdim=True), 0)
    return output


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
    matches, diffs = get_matches_and_diffs(labels, ref_labels)
    a1_idx, p_idx = torch.where(matches)
    a2_idx, n_idx = torch.where(diffs)
    return a1_idx, p_idx, a2_idx, n_idx


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/utils/common_functions.py
def small_val(dtype):
    return torch.finfo(dtype).tiny


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/losses/generic_pair_loss.py
# and pytorch_metric_learning/losses/supcon_loss.py (SupConLoss, cosine similarity)
class SupConLoss:
    def __init__(self, temperature=0.1):
        self.temperature = temperature
        self.is_inverted = True

    def distance(self, query_emb, ref_emb):
        return F.normalize(query_emb, dim=1) @ F.normalize(ref_emb, dim=1).t()

    def compute_loss(self, embeddings, labels, ref_emb, ref_labels):
        indices_tuple = get_all_pairs_indices(labels, ref_labels)
        mat = self.distance(embeddings, ref_emb)
        return self.mat_based_loss(mat, indices_tuple)

    def mat_based_loss(self, mat, indices_tuple):
        a1, p, a2, n = indices_tuple
        pos_mask, neg_mask = torch.zeros_like(mat), torch.zeros_like(mat)
        pos_mask[a1, p] = 1
        neg_mask[a2, n] = 1
        self._assert_either_pos_or_neg(pos_mask, neg_mask)
        return self._compute_loss(mat, pos_mask, neg_mask)

    @staticmethod
    def _assert_either_pos_or_neg(pos_mask, neg_mask):
        assert not torch.any(
            (pos_mask != 0) & (neg_mask != 0)
        ), "Each pair should be either be positive or negative"

    def _compute_loss(self, mat, pos_mask, neg_mask):
        if pos_mask.bool().any() and neg_mask.bool().any():
            # if dealing with actual distances, use negative distances
            if not self.is_inverted:
                mat = -mat
            mat = mat / self.temperature
            mat_max, _ = mat.max(dim=1, keepdim=True)
            mat = mat - mat_max.detach()  # for numerical stability

            denominator = logsumexp(
                mat, keep_mask=(pos_mask + neg_mask).bool(), add_one=False, dim=1
            )
            log_prob = mat - denominator
            mean_log_prob_pos = (pos_mask * log_prob).sum(dim=1) / (
                pos_mask.sum(dim=1) + small_val(mat.dtype)
            )
            return -mean_log_prob_pos
        return torch.zeros(mat.size(0), dtype=mat.dtype, device=mat.device)


class SupConProjectionHead(nn.Module):
    """SimCLR/SupCon-style projection head trained with the supervised contrastive loss."""

    def __init__(self, in_dim, proj_dim):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(in_dim, in_dim), nn.ReLU(), nn.Linear(in_dim, proj_dim))
        self.loss_fn = SupConLoss(temperature=0.1)

    def forward(self, x, labels):
        z = self.head(x)
        losses = self.loss_fn.compute_loss(z, labels, z, labels)
        return losses.mean()
