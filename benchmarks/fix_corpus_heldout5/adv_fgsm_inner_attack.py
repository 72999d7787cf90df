# spec: {"model": "adv_fgsm_inner_attack.py:FGSMTrainWrapper", "init": {"args": [16, 4]}, "inputs": [{"tensor": [6, 16]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 4}], "mode": "train"}
import torch
import torch.nn as nn
import torch.nn.functional as F


class FGSMTrainWrapper(nn.Module):
    """Fast adversarial training (Wong et al.): an FGSM example is crafted inside forward."""

    def __init__(self, dim, n_cls, eps=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, n_cls))
        self.eps = eps

    def forward(self, x, y):
        x_adv = x.detach().clone().requires_grad_(True)
        loss = F.cross_entropy(self.net(x_adv), y)
        grad, = torch.autograd.grad(loss, x_adv)
        x_adv = (x + self.eps * grad.sign()).detach()
        return F.cross_entropy(self.net(x), y) + F.cross_entropy(self.net(x_adv), y)
