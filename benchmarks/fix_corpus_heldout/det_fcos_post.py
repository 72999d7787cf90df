# spec: {"model": "det_fcos_post.py:FCOSPostProcess", "init": {"kwargs": {"num_classes": 4}}, "inputs": [{"tensor": [2, 4, 8, 8]}, {"tensor": [2, 4, 8, 8], "init": "rand"}, {"tensor": [2, 1, 8, 8]}]}
import torch
from torch import nn


class FCOSPostProcess(nn.Module):
    """Decode FCOS-style per-pixel predictions into boxes above a score threshold."""

    def __init__(self, num_classes, score_thresh=0.3, stride=8):
        super().__init__()
        self.num_classes = num_classes
        self.score_thresh = score_thresh
        self.stride = stride

    def forward(self, cls_logits, reg_ltrb, centerness):
        n, c, h, w = cls_logits.shape
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        centers = torch.stack([xs, ys], -1).reshape(-1, 2).float() * self.stride + self.stride // 2
        scores = (cls_logits.sigmoid() * centerness.sigmoid()).sqrt()
        scores = scores.permute(0, 2, 3, 1).reshape(n, -1, c)
        ltrb = reg_ltrb.permute(0, 2, 3, 1).reshape(n, -1, 4) * self.stride
        boxes = torch.cat([centers - ltrb[..., :2], centers + ltrb[..., 2:]], dim=-1)
        results = []
        for i in range(n):
            keep = scores[i] > self.score_thresh
            loc, cls = keep.nonzero(as_tuple=True)
            results.append(torch.cat([boxes[i][loc], scores[i][loc, cls, None], cls[:, None].float()], 1))
        return results
