# spec: {"model": "zuko_monotonic_ladj.py:MonotonicFlowLayer", "init": {"args": [4]}, "inputs": [{"tensor": [6, 4]}]}
import torch
from torch import nn

# vendored from zuko 1.6.0 zuko/transforms.py
# (MonotonicTransform.call_and_ladj: the log-derivative of a monotonic map by autograd;
# the map is an unconstrained monotonic network in the style of zuko's UMNN)


class MonotonicTransform(nn.Module):
    def __init__(self, f, phi=(), bound=10.0, eps=1e-6):
        super().__init__()
        self.f = f
        self.phi = tuple(filter(lambda p: p.requires_grad, phi))
        self.bound = bound
        self.eps = eps

    def call_and_ladj(self, x):
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
    """A flow layer y = a * x + softplus-sum, monotone in x, with its log-density correction."""

    def __init__(self, features, hidden=8):
        super().__init__()
        self.log_a = nn.Parameter(torch.zeros(features))
        self.w = nn.Parameter(torch.randn(hidden, features))
        self.b = nn.Parameter(torch.zeros(hidden, features))

    def f(self, x):
        h = torch.nn.functional.softplus(self.w.abs().unsqueeze(0) * x.unsqueeze(1) + self.b)
        return self.log_a.exp() * x + h.mean(dim=1)

    def forward(self, x):
        transform = MonotonicTransform(self.f, phi=self.parameters())
        y, ladj = transform.call_and_ladj(x)
        log_prob = -0.5 * (y**2).sum(-1) + ladj.sum(-1)
        return y, log_prob
