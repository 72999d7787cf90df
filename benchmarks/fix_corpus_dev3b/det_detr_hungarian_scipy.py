# spec: {"model": "det_detr_hungarian_scipy.py:SetCriterion", "init": {"args": [16, 5]}, "inputs": [{"tensor": [6, 16]}, {"tensor": [3], "dtype": "int64", "init": "randint", "low": 0, "high": 5}, {"tensor": [3, 4], "init": "rand"}]}
import torch
from scipy.optimize import linear_sum_assignment
from torch import nn


class SetCriterion(nn.Module):
    """DETR-style set loss for one image: queries matched to targets by the Hungarian algorithm
    on a class + L1 cost, then the matched pairs scored."""

    def __init__(self, dim, num_classes, cost_bbox=5.0):
        super().__init__()
        self.cls = nn.Linear(dim, num_classes + 1)
        self.box = nn.Linear(dim, 4)
        self.cost_bbox = cost_bbox

    def forward(self, queries, labels, boxes):
        logits = self.cls(queries)
        pred_boxes = self.box(queries).sigmoid()
        prob = logits.softmax(-1)
        cost = -prob[:, labels] + self.cost_bbox * torch.cdist(pred_boxes, boxes, p=1)
        rows, cols = linear_sum_assignment(cost.detach().cpu())
        rows = torch.as_tensor(rows, dtype=torch.int64)
        cols = torch.as_tensor(cols, dtype=torch.int64)
        loss_cls = nn.functional.cross_entropy(logits[rows], labels[cols])
        loss_box = (pred_boxes[rows] - boxes[cols]).abs().sum(-1).mean()
        return loss_cls + self.cost_bbox * loss_box
