# spec: {"model": "shp_yolo_fg_iou_loss.py:BboxLoss", "init": {}, "inputs": [{"tensor": [2, 12, 4], "init": "rand"}, {"tensor": [2, 12, 4], "init": "rand"}, {"tensor": [2, 12, 3], "init": "rand"}, {"tensor": [2, 12], "dtype": "bool", "data": [[true, false, false, true, false, false, true, false, false, false, true, false], [false, false, true, false, false, false, false, true, false, true, false, false]]}]}
import torch
import torch.nn as nn


def bbox_iou(box1, box2, eps=1e-7):
    """IoU of boxes given as (x, y, w, h), each of shape (n, 4) (ultralytics.utils.metrics style)."""
    (x1, y1, w1, h1), (x2, y2, w2, h2) = box1.chunk(4, -1), box2.chunk(4, -1)
    b1_x1, b1_x2, b1_y1, b1_y2 = x1 - w1 / 2, x1 + w1 / 2, y1 - h1 / 2, y1 + h1 / 2
    b2_x1, b2_x2, b2_y1, b2_y2 = x2 - w2 / 2, x2 + w2 / 2, y2 - h2 / 2, y2 + h2 / 2
    inter = (b1_x2.minimum(b2_x2) - b1_x1.maximum(b2_x1)).clamp(0) * (b1_y2.minimum(b2_y2) - b1_y1.maximum(b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    return inter / union


class BboxLoss(nn.Module):
    """ultralytics BboxLoss (IoU part): the IoU loss of the foreground anchors, weighted by their
    target scores and divided by the sum of all target scores."""

    def forward(self, pred_bboxes, target_bboxes, target_scores, fg_mask):
        target_scores_sum = max(target_scores.sum(), 1)
        weight = target_scores.sum(-1)[fg_mask].unsqueeze(-1)
        iou = bbox_iou(pred_bboxes[fg_mask], target_bboxes[fg_mask])
        loss_iou = ((1.0 - iou) * weight).sum() / target_scores_sum
        return loss_iou
