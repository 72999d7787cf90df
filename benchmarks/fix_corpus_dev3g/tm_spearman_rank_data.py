# spec: {"model": "tm_spearman_rank_data.py:RankingHead", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12]}]}
import torch
from torch import Tensor, nn


# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/spearman.py
def _rank_data(data: Tensor) -> Tensor:
    """Calculate the rank for each element of a tensor."""
    n = data.numel()
    rank = torch.empty_like(data, dtype=torch.int32)
    idx = data.argsort()
    rank[idx[:n]] = torch.arange(1, n + 1, dtype=torch.int32, device=data.device)
    uniq, inv, counts = torch.unique(data, sorted=True, return_inverse=True, return_counts=True)
    sum_ranks = torch.zeros_like(uniq, dtype=torch.int32)
    sum_ranks.scatter_add_(0, inv, rank.to(torch.int32))
    mean_ranks = sum_ranks / counts
    return mean_ranks[inv]


def _spearman_corrcoef_compute(preds: Tensor, target: Tensor, eps: float = 1e-6) -> Tensor:
    """Compute Spearman Correlation Coefficient."""
    if preds.ndim == 1:
        preds = _rank_data(preds)
        target = _rank_data(target)
    else:
        preds = torch.stack([_rank_data(p) for p in preds.T]).T
        target = torch.stack([_rank_data(t) for t in target.T]).T

    preds_diff = preds - preds.mean(0)
    target_diff = target - target.mean(0)

    cov = (preds_diff * target_diff).mean(0)
    preds_std = torch.sqrt((preds_diff * preds_diff).mean(0))
    target_std = torch.sqrt((target_diff * target_diff).mean(0))

    corrcoef = cov / (preds_std * target_std + eps)
    return torch.clamp(corrcoef, -1.0, 1.0)


class RankingHead(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x: Tensor, relevance: Tensor) -> tuple[Tensor, Tensor]:
        scores = self.score(x).squeeze(-1)
        rho = _spearman_corrcoef_compute(scores.float(), relevance.float())
        return scores, 1.0 - rho
