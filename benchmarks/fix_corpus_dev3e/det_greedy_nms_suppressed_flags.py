# spec: {"model": "det_greedy_nms_suppressed_flags.py:GreedyNMSHead", "init": {"args": [16, 0.5]}, "inputs": [{"tensor": [12, 16]}]}
import torch
from torch import nn


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class GreedyNMSHead(nn.Module):
    """Box head with a hand-written greedy NMS (the classic py-faster-rcnn loop over a
    suppressed-flag tensor), returning the surviving boxes' scores zeroed elsewhere."""

    def __init__(self, dim, iou_thresh):
        super().__init__()
        self.box = nn.Linear(dim, 4)
        self.score = nn.Linear(dim, 1)
        self.iou_thresh = iou_thresh

    def forward(self, feats):
        raw = self.box(feats).sigmoid()
        boxes = torch.cat([raw[:, :2] * 0.5, raw[:, :2] * 0.5 + raw[:, 2:]], dim=1)
        scores = self.score(feats).squeeze(-1).sigmoid()
        order = scores.argsort(descending=True)
        iou = box_iou(boxes[order], boxes[order])
        suppressed = torch.zeros(len(order), dtype=torch.bool)
        for i in range(len(order)):
            if suppressed[i]:
                continue
            suppressed |= (iou[i] > self.iou_thresh) & (torch.arange(len(order)) > i)
        keep = (~suppressed).float()
        return scores[order] * keep
