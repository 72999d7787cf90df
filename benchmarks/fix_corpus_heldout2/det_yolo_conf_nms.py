# spec: {"model": "det_yolo_conf_nms.py:YoloPost", "inputs": [{"tensor": [1, 16, 64]}]}
import torch
from torch import nn


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = lambda x: (x[:, 2:] - x[:, :2]).prod(-1)
    return inter / (area(a)[:, None] + area(b)[None] - inter)


class YoloPost(nn.Module):
    """A YOLO head conv plus the usual confidence filter and greedy NMS loop (ported from a YOLOv3 repo)."""

    def __init__(self, conf_thres=0.3, iou_thres=0.5):
        super().__init__()
        self.head = nn.Conv1d(16, 6, 1)
        self.conf_thres = conf_thres
        self.iou_thres = iou_thres

    def forward(self, feats):
        pred = self.head(feats)[0].T
        xy, wh, obj = pred[:, :2].sigmoid() * 64, pred[:, 2:4].exp(), pred[:, 4].sigmoid()
        boxes = torch.cat([xy - wh / 2, xy + wh / 2], dim=1)
        keep = obj > self.conf_thres
        boxes, scores = boxes[keep], obj[keep]
        order = scores.argsort(descending=True)
        kept = []
        while order.numel() > 0:
            i = order[0]
            kept.append(i)
            ious = box_iou(boxes[i : i + 1], boxes[order[1:]])[0]
            order = order[1:][ious <= self.iou_thres]
        kept = torch.stack(kept) if kept else torch.zeros(0, dtype=torch.long)
        return boxes[kept], scores[kept]
