# spec: {"model": "nz_kpt_visible_shape.py:KeypointHead", "init": {"args": [10, 5]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [4, 5, 2]}, {"tensor": [4, 5]}]}
import torch
from torch import nn


class KeypointHead(nn.Module):
    """A keypoint regression head (mmpose-like) whose loss over visible joints is divided by
    the number of visible joints, read as the row count of the visible targets."""

    def __init__(self, dim, num_joints):
        super().__init__()
        self.num_joints = num_joints
        self.fc = nn.Linear(dim, num_joints * 2)

    def forward(self, x, target, visibility):
        pred = self.fc(x).view(-1, self.num_joints, 2)
        visible = visibility > 0.3
        err = torch.where(visible[..., None], (pred - target).abs(), 0).sum()
        num_vis = target[visible].shape[0]
        return err / max(num_vis, 1), pred
