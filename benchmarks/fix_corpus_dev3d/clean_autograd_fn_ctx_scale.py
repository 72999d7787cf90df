# spec: {"model": "clean_autograd_fn_ctx_scale.py:DomainAdversarialHead", "init": {"args": [8, 2]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.neg() * ctx.lambd, None


class DomainAdversarialHead(nn.Module):
    """DANN domain classifier behind a gradient reversal layer (a custom autograd.Function
    keeping a float on ctx)."""

    def __init__(self, dim, domains, lambd=0.5):
        super().__init__()
        self.clf = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, domains))
        self.lambd = lambd

    def forward(self, feats):
        return self.clf(GradReverse.apply(feats, self.lambd))
