# spec: {"model": "lx_fpn_skip_nonfinite_level.py:MultiLevelRegLoss", "init": {"args": [6]}, "inputs": [{"tensor": [2, 6, 8, 8]}, {"tensor": [2, 6, 4, 4]}, {"tensor": [2, 6, 2, 2]}]}
import torch
from torch import nn


class MultiLevelRegLoss(nn.Module):
    """Detectron-style multi-level head: a level whose loss is not finite is left out (logged in the original)."""

    def __init__(self, ch, num_levels=3):
        super().__init__()
        self.heads = nn.ModuleList(nn.Conv2d(ch, 4, 3, padding=1) for _ in range(num_levels))
        self.level_weights = [1.0, 0.5, 0.25]

    def level_loss(self, head, feat):
        out = head(feat)
        return torch.log(out.abs().mean()) + out.pow(2).mean()

    def forward(self, p3, p4, p5):
        feats = (p3, p4, p5)
        losses = []
        for i, head in enumerate(self.heads):
            loss_l = self.level_loss(head, feats[i])
            if not torch.isfinite(loss_l).all():
                continue
            losses.append(self.level_weights[i] * loss_l)
        return sum(losses)
