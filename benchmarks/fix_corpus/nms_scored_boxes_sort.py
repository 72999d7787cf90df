# spec: {"model": "nms_scored_boxes_sort.py:GreedyNMS", "inputs": [{"tensor": [6, 4], "init": "rand"}, {"tensor": [6], "init": "rand"}]}
import torch
from torch import nn


def box_area(b):
    return (b[2] - b[0]).clamp(min=0) * (b[3] - b[1]).clamp(min=0)


class GreedyNMS(nn.Module):
    """Detections kept as `(box, score, label)` tuples (a YOLO post-processing script), ordered
    by score before a greedy suppression."""

    def __init__(self, top=4):
        super().__init__()
        self.top = top

    def forward(self, boxes, scores):
        boxes = torch.cat([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]], dim=1)
        dets = [(boxes[i], scores[i], torch.tensor(i % 2)) for i in range(boxes.shape[0])]
        dets.sort(key=lambda d: d[1], reverse=True)
        kept = dets[: self.top]
        areas = torch.stack([box_area(b) for b, _, _ in kept])
        weights = torch.stack([s for _, s, _ in kept])
        return (areas * weights).sum(), torch.stack([lab for _, _, lab in kept])
