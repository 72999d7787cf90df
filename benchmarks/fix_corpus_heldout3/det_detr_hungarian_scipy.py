# spec: {"model": "det_detr_hungarian_scipy.py:SetCriterion", "init": {"args": [16, 4]}, "inputs": [{"tensor": [6, 16]}, {"tensor": [3], "dtype": "int64", "data": [0, 2, 1]}, {"tensor": [3, 4], "init": "rand"}]}
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment
from torch import nn


class SetCriterion(nn.Module):
    """DETR's set loss for one image: Hungarian matching with scipy, then class and L1 box losses."""

    def __init__(self, hidden, num_classes, cost_class=1.0, cost_bbox=5.0):
        super().__init__()
        self.class_embed = nn.Linear(hidden, num_classes + 1)
        self.bbox_embed = nn.Linear(hidden, 4)
        self.num_classes = num_classes
        self.cost_class, self.cost_bbox = cost_class, cost_bbox

    @torch.no_grad()
    def match(self, logits, boxes, tgt_labels, tgt_boxes):
        cost = -self.cost_class * logits.softmax(-1)[:, tgt_labels] + self.cost_bbox * torch.cdist(boxes, tgt_boxes, p=1)
        rows, cols = linear_sum_assignment(cost.cpu())
        return torch.as_tensor(rows, dtype=torch.long), torch.as_tensor(cols, dtype=torch.long)

    def forward(self, queries, tgt_labels, tgt_boxes):
        logits = self.class_embed(queries)
        boxes = self.bbox_embed(queries).sigmoid()
        src_idx, tgt_idx = self.match(logits, boxes, tgt_labels, tgt_boxes)
        target_classes = torch.full((queries.shape[0],), self.num_classes, dtype=torch.long)
        target_classes[src_idx] = tgt_labels[tgt_idx]
        loss_ce = F.cross_entropy(logits, target_classes)
        loss_bbox = F.l1_loss(boxes[src_idx], tgt_boxes[tgt_idx])
        return loss_ce + loss_bbox
