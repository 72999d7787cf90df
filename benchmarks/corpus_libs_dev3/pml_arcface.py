"""pytorch-metric-learning: a face-embedding head trained with the additive angular margin (ArcFace) loss."""

import torch
from pytorch_metric_learning.losses import ArcFaceLoss


class FaceHead(torch.nn.Module):
    def __init__(self, dim: int = 8, classes: int = 5) -> None:
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(dim)
        self.loss = ArcFaceLoss(num_classes=classes, embedding_size=dim, margin=28.6, scale=64)

    def forward(self, feats, labels):
        return self.loss(self.bn(feats), labels)


def make():
    torch.manual_seed(0)
    return FaceHead(), (torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 4, 0]))
