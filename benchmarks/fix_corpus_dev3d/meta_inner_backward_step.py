# spec: {"model": "meta_inner_backward_step.py:FirstOrderMAML", "init": {"args": [8, 3]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 3}], "mode": "train"}
import torch
from torch import nn
from torch.nn import functional as F


class FirstOrderMAML(nn.Module):
    """First-order MAML adaptation inside forward (research code): one inner SGD step on the
    support batch, with loss.backward() filling .grad of a fast copy of the head weights."""

    def __init__(self, dim, classes, inner_lr=0.1):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)
        self.inner_lr = inner_lr

    def forward(self, x, y):
        feats = self.body(x).relu()
        fast_w = self.head.weight.detach().clone().requires_grad_(True)
        inner = F.cross_entropy(F.linear(feats.detach(), fast_w, self.head.bias.detach()), y)
        inner.backward()
        adapted = fast_w - self.inner_lr * fast_w.grad
        return F.cross_entropy(F.linear(feats, adapted, self.head.bias), y)
