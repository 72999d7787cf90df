# spec: {"model": "seg_masked_assign_refine.py:UncertainPointRefiner", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 6, 6]}]}
from torch import nn


class UncertainPointRefiner(nn.Module):
    """PointRend-like refinement: logits whose top-two margin is small are replaced by a
    refined head's logits, selected with a boolean mask on both sides."""

    def __init__(self, ch, classes, margin=0.2):
        super().__init__()
        self.coarse = nn.Conv2d(ch, classes, 1)
        self.fine = nn.Conv2d(ch, classes, 3, padding=1)
        self.margin = margin

    def forward(self, feats):
        coarse = self.coarse(feats)
        fine = self.fine(feats)
        top2 = coarse.softmax(1).topk(2, dim=1).values
        uncertain = (top2[:, 0] - top2[:, 1] < self.margin).unsqueeze(1).expand_as(coarse)
        out = coarse.clone()
        out[uncertain] = fine[uncertain]
        return out
