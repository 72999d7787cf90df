# spec: {"model": "yolo_fg_box_obj_rows.py:YoloLoss", "init": {"args": [8]}, "inputs": [{"tensor": [2, 24, 8]}, {"tensor": [2, 24, 4], "init": "rand"}, {"tensor": [2, 24], "dtype": "bool", "p": 0.4}]}
import torch
from torch import nn


class YoloLoss(nn.Module):
    """YOLO-style loss: objectness on every anchor, box loss on the foreground anchors
    selected once (`pbox = pred[fg_mask]`) and used by several terms."""

    def __init__(self, in_dim):
        super().__init__()
        self.head = nn.Linear(in_dim, 5)

    def forward(self, feats, target_boxes, fg_mask):
        out = self.head(feats)
        pred_boxes = out[..., :4].sigmoid()
        obj = out[..., 4]
        loss_obj = torch.nn.functional.binary_cross_entropy_with_logits(obj, fg_mask.float())
        pbox = pred_boxes[fg_mask]
        tbox = target_boxes[fg_mask]
        loss_l2 = ((pbox - tbox) ** 2).mean()
        loss_l1 = (pbox - tbox).abs().sum() / len(pbox)
        return loss_obj + 5.0 * loss_l2 + loss_l1
