# spec: {"model": "zuko_monotonic_autograd_ladj.py:MonotonicFlowLayer", "init": {"args": [4]}, "inputs": [{"tensor": [6, 4]}]}
import torch
from torch import Tensor, nn


# vendored from zuko 1.6.0 zuko/transforms.py (MonotonicTransform.call_and_ladj)
class MonotonicTransform(nn.Module):
    def __init__(self, f, phi=(), bound: float = 10.0, eps: float = 1e-6):
        super().__init__()
        self.f = f
        self.phi = tuple(filter(lambda p: p.requires_grad, phi))
        self.bound = bound
        self.eps = eps

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        create_graph = torch.is_grad_enabled() and (x.requires_grad or bool(self.phi))

        with torch.enable_grad():
            x = x.clone().requires_grad_()
            y = self.f(x)

        jacobian = torch.autograd.grad(
            y,
            x,
            torch.ones_like(y),
            create_graph=create_graph,
        )[0]

        return y, jacobian.log()


class MonotonicFlowLayer(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(features))
        self.shift = nn.Parameter(torch.zeros(features))
        self.transform = MonotonicTransform(self.monotone, phi=(self.log_scale, self.shift))

    def monotone(self, x):
        return self.log_scale.exp() * (x + 0.1 * torch.tanh(x)) + self.shift

    def forward(self, x):
        z, ladj = self.transform.call_and_ladj(x)
        return z, ladj.sum(dim=-1)
