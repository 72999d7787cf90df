# spec: {"model": "lp_ohem_range_int_topn.py:OhemBoxLoss", "init": {"args": [16]}, "inputs": [{"tensor": [40, 16]}, {"tensor": [40], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
import torch.nn.functional as F
from torch import nn


class OhemBoxLoss(nn.Module):
    """SSD-style hard negative mining: the negatives sorted by loss, the first 3 * num_pos summed
    in a loop over range(int(...)) (the count clamped to the negatives there are)."""

    def __init__(self, dim, neg_pos_ratio=3):
        super().__init__()
        self.cls = nn.Linear(dim, 2)
        self.neg_pos_ratio = neg_pos_ratio

    def forward(self, feats, labels):
        ce = F.cross_entropy(self.cls(feats), labels, reduction="none")
        pos = labels > 0
        num_pos = pos.sum()
        neg_loss = torch.where(pos, torch.zeros_like(ce), ce)
        sorted_neg, _ = neg_loss.sort(descending=True)
        num_neg = torch.clamp(self.neg_pos_ratio * num_pos, max=labels.numel() - num_pos)
        hard = ce.new_zeros(())
        for i in range(int(num_neg)):
            hard = hard + sorted_neg[i]
        return ((ce * pos).sum() + hard) / num_pos.clamp(min=1)
