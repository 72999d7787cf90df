"""torchmetrics: functional regression and correlation metrics in forward."""

import torch
from torchmetrics.functional import pearson_corrcoef, spearman_corrcoef, explained_variance, concordance_corrcoef


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(4, 1)

    def forward(self, x, y):
        p = self.head(x).squeeze(-1)
        return pearson_corrcoef(p, y), spearman_corrcoef(p, y), explained_variance(p, y), concordance_corrcoef(p, y)


def make():
    torch.manual_seed(0)
    return Model(), (torch.randn(8, 4), torch.randn(8))
