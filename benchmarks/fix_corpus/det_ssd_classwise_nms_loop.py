# spec: {"model": "det_ssd_classwise_nms_loop.py:SSDPostProcess", "init": {"args": [4]}, "inputs": [{"tensor": [64, 4], "init": "rand"}, {"tensor": [64, 4]}]}
import torch
from torch import nn


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def hard_nms(boxes, scores, iou_thr):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i][None], boxes[order[1:]])[0]
        order = order[1:][ious <= iou_thr]
    return torch.stack(keep) if keep else torch.empty(0, dtype=torch.long)


class SSDPostProcess(nn.Module):
    """SSD-style post-processing: per-class score threshold, then greedy hard NMS written in Python."""

    def __init__(self, num_classes, score_thr=0.3, iou_thr=0.45):
        super().__init__()
        self.num_classes = num_classes
        self.score_thr = score_thr
        self.iou_thr = iou_thr
        self.cls_head = nn.Linear(4, num_classes + 1)

    def forward(self, boxes, feats):
        xy = boxes[:, :2]
        boxes = torch.cat([xy, xy + boxes[:, 2:] + 0.05], dim=1)
        probs = self.cls_head(feats).softmax(-1)
        out_boxes, out_scores, out_labels = [], [], []
        for c in range(1, self.num_classes + 1):
            s = probs[:, c]
            m = s > self.score_thr
            cb, cs = boxes[m], s[m]
            keep = hard_nms(cb, cs, self.iou_thr)
            out_boxes.append(cb[keep])
            out_scores.append(cs[keep])
            out_labels.append(torch.full_like(keep, c))
        return torch.cat(out_boxes), torch.cat(out_scores), torch.cat(out_labels)
