"""pytorch-metric-learning: embedding network trained with a multi-similarity miner + triplet loss."""

import torch
from pytorch_metric_learning import losses, miners


class Embedder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = torch.nn.Linear(8, 4)
        self.miner = miners.MultiSimilarityMiner(epsilon=0.1)
        self.loss_fn = losses.TripletMarginLoss(margin=0.2)

    def forward(self, x, labels):
        emb = self.trunk(x)
        pairs = self.miner(emb, labels)
        return self.loss_fn(emb, labels, pairs)


def make():
    torch.manual_seed(0)
    return Embedder(), (torch.randn(8, 8), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3]))
