# spec: {"model": "obs_dict_loss_skip.py:DetectorLoss", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8], "init": "randn"}, {"tensor": [4, 8], "init": "randn"}], "mode": "train"}
import torch
from torch import nn
from torch.nn import functional as F


class DetectorLoss(nn.Module):
    """mmdet / detectron2 flavour: the head returns a dict of losses, and a loss that blew up
    is skipped (zeroed) instead of being backpropagated."""

    def __init__(self, dim, max_loss=50.0):
        super().__init__()
        self.head = nn.Linear(dim, dim)
        self.max_loss = max_loss

    def losses(self, pred, target):
        return {"loss_reg": F.smooth_l1_loss(pred, target), "loss_aux": pred.pow(2).mean()}

    def forward(self, x, target):
        losses = self.losses(self.head(x), target)
        loss = losses["loss_reg"]
        if loss > self.max_loss:
            weight = 0.0
        else:
            weight = 1.0
        return weight * loss + 0.1 * losses["loss_aux"]
