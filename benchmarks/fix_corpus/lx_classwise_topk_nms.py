# spec: {"model": "lx_classwise_topk_nms.py:YoloPostprocess", "init": {"args": [3]}, "inputs": [{"tensor": [32, 4], "init": "rand"}, {"tensor": [32, 8]}]}
import torch
from torch import nn


def nms(boxes, scores, thr):
    x1, y1, x2, y2 = boxes.unbind(-1)
    areas = (x2 - x1) * (y2 - y1)
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0].item()
        keep.append(i)
        xx1 = torch.maximum(x1[i], x1[order[1:]])
        yy1 = torch.maximum(y1[i], y1[order[1:]])
        xx2 = torch.minimum(x2[i], x2[order[1:]])
        yy2 = torch.minimum(y2[i], y2[order[1:]])
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        iou = inter / (areas[i] + areas[order[1:]] - inter)
        order = order[1:][iou <= thr]
    return torch.tensor(keep, dtype=torch.long)


class YoloPostprocess(nn.Module):
    """YOLO-style post-processing: top-k per class over the classes predicted, then a Python NMS."""

    def __init__(self, num_classes, topk=8, iou_thr=0.5):
        super().__init__()
        self.cls = nn.Linear(8, num_classes)
        self.topk = topk
        self.iou_thr = iou_thr

    def forward(self, boxes, feats):
        boxes = torch.cat([boxes[:, :2], boxes[:, :2] + boxes[:, 2:] + 0.1], 1)
        scores, labels = self.cls(feats).softmax(-1).max(-1)
        results = []
        for c in labels.unique():
            idx = torch.where(labels == c)[0]
            s, order = scores[idx].topk(min(self.topk, idx.numel()))
            b = boxes[idx[order]]
            keep = nms(b, s, self.iou_thr)
            results.append(torch.cat([b[keep], s[keep, None], torch.full_like(s[keep, None], float(c))], 1))
        return torch.cat(results)
