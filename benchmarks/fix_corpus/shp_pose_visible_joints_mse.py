# spec: {"model": "shp_pose_visible_joints_mse.py:JointsMSEHead", "init": {"args": [8, 5]}, "inputs": [{"tensor": [2, 8, 8, 8]}, {"tensor": [2, 5, 8, 8], "init": "rand"}, {"tensor": [2, 5, 1], "data": [[[1.0], [0.0], [1.0], [1.0], [0.0]], [[0.0], [1.0], [1.0], [0.0], [0.0]]]}]}
import torch
import torch.nn as nn


class JointsMSEHead(nn.Module):
    """Top-down pose estimation (HRNet / mmpose style): heatmap MSE over the visible joints only, and
    the largest predicted response among them as a confidence statistic for the logger."""

    def __init__(self, in_channels, num_joints):
        super().__init__()
        self.final_layer = nn.Conv2d(in_channels, num_joints, 1)

    def forward(self, feats, target, target_weight):
        heatmaps = self.final_layer(feats)
        visible = target_weight.squeeze(-1) > 0
        pred_vis = heatmaps[visible]
        gt_vis = target[visible]
        loss = 0.5 * ((pred_vis - gt_vis) ** 2).mean()
        peak = pred_vis.detach().max()
        return loss, peak
