# spec: {"model": "det_fcos_box_l1_rows.py:FCOSRegLoss", "init": {"args": [16, 3]}, "inputs": [{"tensor": [40, 16]}, {"tensor": [40], "dtype": "int64", "init": "randint", "low": 0, "high": 3}, {"tensor": [40, 4], "init": "rand"}]}
import torch.nn.functional as F
from torch import nn


class FCOSRegLoss(nn.Module):
    """FCOS-style head loss: focal-free classification on every location, L1 on the ltrb
    distances of the positive locations only (labels > 0 selects whole rows)."""

    def __init__(self, in_dim, num_classes):
        super().__init__()
        self.cls_logits = nn.Linear(in_dim, num_classes)
        self.bbox_pred = nn.Linear(in_dim, 4)

    def forward(self, feats, labels, reg_targets):
        logits = self.cls_logits(feats)
        box_pred = F.relu(self.bbox_pred(feats))
        loss_cls = F.cross_entropy(logits, labels)
        pos_inds = labels > 0
        loss_box = F.l1_loss(box_pred[pos_inds], reg_targets[pos_inds])
        return loss_cls + loss_box
