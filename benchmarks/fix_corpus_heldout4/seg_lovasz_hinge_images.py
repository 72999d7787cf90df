# spec: {"model": "seg_lovasz_hinge_images.py:LovaszSegHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 8, 8]}, {"tensor": [2, 8, 8], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


def lovasz_grad(gt_sorted):
    p = len(gt_sorted)
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1.0 - intersection / union
    if p > 1:
        jaccard[1:p] = jaccard[1:p] - jaccard[0:-1]
    return jaccard


def flatten_binary_scores(scores, labels, ignore=None):
    scores, labels = scores.view(-1), labels.view(-1)
    if ignore is None:
        return scores, labels
    valid = labels != ignore
    return scores[valid], labels[valid]


def lovasz_hinge_flat(logits, labels):
    if len(labels) == 0:
        return logits.sum() * 0.0
    signs = 2.0 * labels.float() - 1.0
    errors = 1.0 - logits * signs
    errors_sorted, perm = torch.sort(errors, dim=0, descending=True)
    grad = lovasz_grad(labels[perm])
    return torch.dot(F.relu(errors_sorted), grad)


class LovaszSegHead(nn.Module):
    """Binary segmentation head trained with the Lovasz hinge (Berman et al. reference code), per image, label 2 ignored."""

    def __init__(self, in_ch):
        super().__init__()
        self.head = nn.Conv2d(in_ch, 1, 1)

    def forward(self, feats, labels):
        logits = self.head(feats).squeeze(1)
        loss = torch.stack([lovasz_hinge_flat(*flatten_binary_scores(lg, lb, ignore=2)) for lg, lb in zip(logits, labels)])
        return loss.mean()
