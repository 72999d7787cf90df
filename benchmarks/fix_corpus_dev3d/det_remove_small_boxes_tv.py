# spec: {"model": "det_remove_small_boxes_tv.py:BoxPostProcess", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12, 4], "init": "rand"}]}
from torch import nn
from torchvision.ops import box_convert, remove_small_boxes


class BoxPostProcess(nn.Module):
    """Detector post-processing with torchvision's helpers: decode cxcywh boxes, drop the tiny
    ones, score the rest."""

    def __init__(self, dim, min_size=0.3):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.min_size = min_size

    def forward(self, feats, boxes_cxcywh):
        boxes = box_convert(boxes_cxcywh, "cxcywh", "xyxy")
        keep = remove_small_boxes(boxes, self.min_size)
        return boxes[keep], self.score(feats[keep]).squeeze(1)
