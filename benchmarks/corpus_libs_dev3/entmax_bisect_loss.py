"""entmax: alpha-entmax output layer trained with the bisection entmax loss (learned alpha)."""

import torch
from entmax import EntmaxBisect, entmax_bisect_loss


class SparseClassifier(torch.nn.Module):
    def __init__(self, d_in: int = 8, n_classes: int = 5) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(d_in, n_classes)
        self.act = EntmaxBisect(alpha=1.3, dim=-1, n_iter=25)

    def forward(self, x, y):
        logits = self.proj(x)
        probs = self.act(logits)
        loss = entmax_bisect_loss(logits, y, alpha=1.3, n_iter=25).mean()
        return probs, loss


def make():
    torch.manual_seed(0)
    return SparseClassifier(), (torch.randn(4, 8), torch.tensor([0, 2, 4, 1]))
