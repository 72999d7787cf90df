# spec: {"model": "nz_fcos_num_pos.py:FCOSClsLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 5, 5]}, {"tensor": [2, 25], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
import torch.nn.functional as F
from torch import nn


class FCOSClsLoss(nn.Module):
    """mmdet FCOS-style classification loss: the positive locations are found with
    `nonzero().reshape(-1)` only to normalize the focal loss by their number."""

    def __init__(self, channels, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.conv_cls = nn.Conv2d(channels, num_classes, 3, padding=1)

    def forward(self, feats, labels):
        cls_score = self.conv_cls(feats).flatten(2).transpose(1, 2).reshape(-1, self.num_classes)
        flatten_labels = labels.reshape(-1)
        bg_class_ind = self.num_classes
        pos_inds = ((flatten_labels >= 0) & (flatten_labels < bg_class_ind)).nonzero().reshape(-1)
        num_pos = max(len(pos_inds), 1.0)
        onehot = F.one_hot(flatten_labels, self.num_classes + 1)[:, : self.num_classes].float()
        loss = F.binary_cross_entropy_with_logits(cls_score, onehot, reduction="sum")
        return loss / num_pos
