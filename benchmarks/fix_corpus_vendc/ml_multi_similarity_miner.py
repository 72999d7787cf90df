# spec: {"model": "ml_multi_similarity_miner.py:RetrievalEmbedder", "init": {"args": [8, 6]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [10], "dtype": "int64", "data": [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]}], "calls": 2}
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


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/utils/common_functions.py
def pos_inf(dtype):
    return torch.finfo(dtype).max


def neg_inf(dtype):
    return torch.finfo(dtype).min


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/distances/cosine_similarity.py
class CosineSimilarity:
    is_inverted = True

    def __call__(self, query_emb, ref_emb=None):
        query_emb = F.normalize(query_emb, p=2, dim=1)
        ref_emb = query_emb if ref_emb is None else F.normalize(ref_emb, p=2, dim=1)
        return torch.matmul(query_emb, ref_emb.t())


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/miners/multi_similarity_miner.py
class MultiSimilarityMiner:
    def __init__(self, epsilon=0.1):
        self.epsilon = epsilon
        self.distance = CosineSimilarity()

    def mine(self, embeddings, labels, ref_emb, ref_labels):
        mat = self.distance(embeddings, ref_emb)
        a1, p, a2, n = get_all_pairs_indices(labels, ref_labels)

        if len(a1) == 0 or len(a2) == 0:
            empty = torch.tensor([], device=labels.device, dtype=torch.long)
            return empty.clone(), empty.clone(), empty.clone(), empty.clone()

        mat_neg_sorting = mat
        mat_pos_sorting = mat.clone()

        dtype = mat.dtype
        pos_ignore = (
            pos_inf(dtype) if self.distance.is_inverted else neg_inf(dtype)
        )
        neg_ignore = (
            neg_inf(dtype) if self.distance.is_inverted else pos_inf(dtype)
        )

        mat_pos_sorting[a2, n] = pos_ignore
        mat_neg_sorting[a1, p] = neg_ignore
        if embeddings is ref_emb:
            mat_pos_sorting.fill_diagonal_(pos_ignore)
            mat_neg_sorting.fill_diagonal_(neg_ignore)

        pos_sorted, pos_sorted_idx = torch.sort(mat_pos_sorting, dim=1)
        neg_sorted, neg_sorted_idx = torch.sort(mat_neg_sorting, dim=1)

        if self.distance.is_inverted:
            hard_pos_idx = torch.where(
                pos_sorted - self.epsilon < neg_sorted[:, -1].unsqueeze(1)
            )
            hard_neg_idx = torch.where(
                neg_sorted + self.epsilon > pos_sorted[:, 0].unsqueeze(1)
            )
        else:
            hard_pos_idx = torch.where(
                pos_sorted + self.epsilon > neg_sorted[:, 0].unsqueeze(1)
            )
            hard_neg_idx = torch.where(
                neg_sorted - self.epsilon < pos_sorted[:, -1].unsqueeze(1)
            )

        a1 = hard_pos_idx[0]
        p = pos_sorted_idx[a1, hard_pos_idx[1]]
        a2 = hard_neg_idx[0]
        n = neg_sorted_idx[a2, hard_neg_idx[1]]

        return a1, p, a2, n


class RetrievalEmbedder(nn.Module):
    """Image-retrieval head: mines hard pairs with the multi-similarity rule, contrastive loss on them."""

    def __init__(self, in_dim, emb_dim, pos_margin=0.8, neg_margin=0.4):
        super().__init__()
        self.embed = nn.Linear(in_dim, emb_dim)
        self.miner = MultiSimilarityMiner(epsilon=0.1)
        self.pos_margin = pos_margin
        self.neg_margin = neg_margin

    def forward(self, x, labels):
        emb = self.embed(x)
        with torch.no_grad():
            a1, p, a2, n = self.miner.mine(emb.detach(), labels, emb.detach(), labels)
        sim = self.miner.distance(emb, emb)
        pos_loss = F.relu(self.pos_margin - sim[a1, p])
        neg_loss = F.relu(sim[a2, n] - self.neg_margin)
        return pos_loss.mean() + neg_loss.mean()
