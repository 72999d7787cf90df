# spec: {"model": "seg_output_mode_string.py:SegHead", "init": {"args": [8, 5]}, "inputs": [{"tensor": [2, 8, 16, 16]}, "logits"], "variants": [{"inputs": [{"tensor": [2, 8, 16, 16]}, "probs"]}, {"inputs": [{"tensor": [2, 8, 16, 16]}, "labels"]}]}
import torch
from torch import nn


class SegHead(nn.Module):
    """A segmentation head whose caller picks the output form by name (inference-API style)."""

    def __init__(self, in_ch, num_classes):
        super().__init__()
        self.classifier = nn.Sequential(nn.Conv2d(in_ch, in_ch, 3, padding=1), nn.ReLU(), nn.Conv2d(in_ch, num_classes, 1))

    def forward(self, feats, output_type="logits"):
        logits = self.classifier(feats)
        if output_type == "logits":
            return logits
        if output_type == "probs":
            return logits.softmax(dim=1)
        if output_type == "labels":
            return logits.argmax(dim=1)
        raise ValueError(f"unknown output_type {output_type!r}")
