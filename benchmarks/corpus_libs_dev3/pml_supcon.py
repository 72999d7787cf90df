"""pytorch-metric-learning: supervised contrastive loss with a batch-hard miner on projected embeddings."""

import torch
from pytorch_metric_learning import losses, miners


class SupConHead(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 4)
        self.miner = miners.BatchHardMiner()
        self.loss = losses.SupConLoss(temperature=0.1)

    def forward(self, x, labels):
        z = torch.nn.functional.normalize(self.proj(x), dim=-1)
        hard = self.miner(z, labels)
        return self.loss(z, labels, hard)


def make():
    torch.manual_seed(0)
    return SupConHead(), (torch.randn(8, 8), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3]))
