# spec: {"model": "kpt_visible_l1_count.py:KeypointLoss", "init": {"args": [16, 5]}, "inputs": [{"tensor": [3, 16]}, {"tensor": [3, 5, 2], "init": "rand"}, {"tensor": [3, 5], "dtype": "bool", "p": 0.6}]}
from torch import nn


class KeypointLoss(nn.Module):
    """A keypoint regression head; the L1 loss counts only the visible keypoints
    ([B, K, 2] coordinates, a [B, K] visibility mask), normalised by the element count."""

    def __init__(self, in_dim, num_kpts):
        super().__init__()
        self.num_kpts = num_kpts
        self.kpt_head = nn.Linear(in_dim, num_kpts * 2)

    def forward(self, feats, kpt_gt, visible):
        kpt_pred = self.kpt_head(feats).view(-1, self.num_kpts, 2).sigmoid()
        diff = (kpt_pred[visible] - kpt_gt[visible]).abs()
        loss = diff.sum() / diff.numel()
        return loss
