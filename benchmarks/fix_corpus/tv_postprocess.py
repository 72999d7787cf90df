# spec: {"model": "tv_postprocess.py:DetectionPostProcess", "inputs": [{"tensor": [12, 4], "init": "rand"}, {"tensor": [12, 3]}]}
import torch
import torch.nn.functional as F
from torch import nn


class DetectionPostProcess(nn.Module):
    """Per-class score thresholding and top-k of a detection head, torchvision style."""

    def __init__(self, score_thresh=0.3, detections_per_img=5):
        super().__init__()
        self.score_thresh = score_thresh
        self.detections_per_img = detections_per_img
        self.box_refine = nn.Linear(4, 4)

    def forward(self, boxes, class_logits):
        boxes = boxes + 0.1 * self.box_refine(boxes)
        scores = F.softmax(class_logits, -1)
        all_boxes, all_scores, all_labels = [], [], []
        for label in range(1, scores.shape[1]):
            inds = torch.where(scores[:, label] > self.score_thresh)[0]
            all_boxes.append(boxes[inds])
            all_scores.append(scores[inds, label])
            all_labels.append(torch.full_like(inds, label))
        boxes = torch.cat(all_boxes)
        scores = torch.cat(all_scores)
        labels = torch.cat(all_labels)
        keep = scores.argsort(descending=True)[: self.detections_per_img]
        return boxes[keep], scores[keep], labels[keep]
