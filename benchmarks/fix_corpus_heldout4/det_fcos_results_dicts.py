# spec: {"model": "det_fcos_results_dicts.py:AnchorFreeDetector", "init": {"args": [3]}, "inputs": [{"tensor": [2, 8, 8, 8]}]}
import torch
from torch import nn


class AnchorFreeDetector(nn.Module):
    """Anchor-free (FCOS-like) head whose inference path returns per-image lists of plain Python detections."""

    def __init__(self, num_classes, stride=8, score_thr=0.55, max_det=20):
        super().__init__()
        self.cls = nn.Conv2d(8, num_classes, 3, padding=1)
        self.reg = nn.Conv2d(8, 4, 3, padding=1)
        self.stride = stride
        self.score_thr = score_thr
        self.max_det = max_det

    def forward(self, feats):
        b, _, h, w = feats.shape
        scores = self.cls(feats).sigmoid().flatten(2).transpose(1, 2)
        ltrb = self.reg(feats).exp().flatten(2).transpose(1, 2) * self.stride
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        centers = torch.stack([xs, ys], -1).reshape(-1, 2).float() * self.stride + self.stride // 2
        boxes = torch.cat([centers - ltrb[..., :2], centers + ltrb[..., 2:]], dim=-1)
        results = []
        for i in range(b):
            s, labels = scores[i].max(-1)
            keep = s > self.score_thr
            s, labels, bx = s[keep], labels[keep], boxes[i][keep]
            top = s.argsort(descending=True)[: self.max_det]
            results.append([
                {"box": bx[j].tolist(), "score": float(s[j]), "label": int(labels[j])} for j in top
            ])
        return results
