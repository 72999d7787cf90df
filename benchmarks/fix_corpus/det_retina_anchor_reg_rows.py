# spec: {"model": "det_retina_anchor_reg_rows.py:RetinaRegressionLoss", "init": {"args": [8]}, "inputs": [{"tensor": [2, 30, 8]}, {"tensor": [2, 30, 4]}, {"tensor": [2, 30], "dtype": "bool", "p": 0.3}]}
from torch import nn


class RetinaRegressionLoss(nn.Module):
    """RetinaNet regression head loss over the foreground anchors of a batch
    ([B, A, 4] deltas, a [B, A] foreground mask), torchvision `compute_loss` style."""

    def __init__(self, in_dim):
        super().__init__()
        self.bbox_reg = nn.Linear(in_dim, 4)

    def forward(self, anchor_feats, target_deltas, foreground):
        bbox_regression = self.bbox_reg(anchor_feats)
        loss = (bbox_regression[foreground] - target_deltas[foreground]).abs().mean()
        return loss
