# spec: {"model": "c4_retina_head.py:RetinaNetHead", "init": {"args": [8, 9, 5]}, "inputs": [[{"tensor": [2, 8, 8, 8]}, {"tensor": [2, 8, 4, 4]}, {"tensor": [2, 8, 2, 2]}]], "calls": 3}
import math

import torch
from torch import nn


class RetinaNetClassificationHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01, num_convs=2):
        super().__init__()
        conv = []
        for _ in range(num_convs):
            conv.append(nn.Conv2d(in_channels, in_channels, 3, padding=1))
            conv.append(nn.ReLU())
        self.conv = nn.Sequential(*conv)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, 3, padding=1)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors

    def forward(self, x):
        all_cls_logits = []
        for features in x:
            cls_logits = self.cls_logits(self.conv(features))
            N, _, H, W = cls_logits.shape
            cls_logits = cls_logits.view(N, -1, self.num_classes, H, W)
            cls_logits = cls_logits.permute(0, 3, 4, 1, 2)
            cls_logits = cls_logits.reshape(N, -1, self.num_classes)
            all_cls_logits.append(cls_logits)
        return torch.cat(all_cls_logits, dim=1)


class RetinaNetRegressionHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_convs=2):
        super().__init__()
        self.conv = nn.Sequential(*[m for _ in range(num_convs) for m in (nn.Conv2d(in_channels, in_channels, 3, padding=1), nn.ReLU())])
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, 3, padding=1)

    def forward(self, x):
        all_bbox_regression = []
        for features in x:
            bbox_regression = self.bbox_reg(self.conv(features))
            N, _, H, W = bbox_regression.shape
            bbox_regression = bbox_regression.view(N, -1, 4, H, W)
            bbox_regression = bbox_regression.permute(0, 3, 4, 1, 2)
            all_bbox_regression.append(bbox_regression.reshape(N, -1, 4))
        return torch.cat(all_bbox_regression, dim=1)


class RetinaNetHead(nn.Module):
    """torchvision's RetinaNet head: a list of FPN levels in, a dict of concatenated outputs."""

    def __init__(self, in_channels, num_anchors, num_classes):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(in_channels, num_anchors, num_classes)
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors)

    def forward(self, x):
        return {
            "cls_logits": self.classification_head(x),
            "bbox_regression": self.regression_head(x),
        }
