"""linear_operator: a structured covariance (low rank plus diagonal) solved and log-det'd."""

import torch
from linear_operator.operators import DiagLinearOperator, LowRankRootAddedDiagLinearOperator, LowRankRootLinearOperator


class GPHead(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.root = torch.nn.Linear(4, 3)

    def forward(self, x, y):
        r = self.root(x)
        cov = LowRankRootAddedDiagLinearOperator(
            LowRankRootLinearOperator(r), DiagLinearOperator(torch.full((x.shape[0],), 0.5))
        )
        sol = cov.solve(y.unsqueeze(-1))
        return sol.sum() + cov.logdet()


def make():
    torch.manual_seed(0)
    return GPHead(), (torch.randn(6, 4), torch.randn(6))
