# spec: {"model": "nf_iresblock_fixed_point.py:ResidualFlowInverse", "init": {"args": [4]}, "inputs": [{"tensor": [6, 4]}], "calls": 2}
import numpy as np
import torch
from torch import nn


# vendored from normflows 1.7.3 normflows/flows/residual.py (iResBlock: constructor, forward, inverse,
# the fixed-point inverse; the stochastic log-determinant estimator is not vendored)
class iResBlock(nn.Module):
    def __init__(
        self,
        nnet,
        geom_p=0.5,
        lamb=2.0,
        n_power_series=None,
        exact_trace=False,
        brute_force=False,
        n_samples=1,
        n_exact_terms=2,
        n_dist="geometric",
        neumann_grad=True,
        grad_in_forward=False,
    ):
        nn.Module.__init__(self)
        self.nnet = nnet
        self.n_dist = n_dist
        self.geom_p = nn.Parameter(torch.tensor(np.log(geom_p) - np.log(1.0 - geom_p)))
        self.lamb = nn.Parameter(torch.tensor(lamb))
        self.n_samples = n_samples
        self.n_power_series = n_power_series
        self.exact_trace = exact_trace
        self.brute_force = brute_force
        self.n_exact_terms = n_exact_terms
        self.grad_in_forward = grad_in_forward
        self.neumann_grad = neumann_grad

        # store the samples of n.
        self.register_buffer("last_n_samples", torch.zeros(self.n_samples))
        self.register_buffer("last_firmom", torch.zeros(1))
        self.register_buffer("last_secmom", torch.zeros(1))

    def forward(self, x, logpx=None):
        if logpx is None:
            y = x + self.nnet(x)
            return y
        else:
            raise NotImplementedError("log-determinant estimator not vendored")

    def inverse(self, y, logpy=None):
        x = self._inverse_fixed_point(y)
        if logpy is None:
            return x
        else:
            raise NotImplementedError("log-determinant estimator not vendored")

    def _inverse_fixed_point(self, y, atol=1e-5, rtol=1e-5):
        x, x_prev = y - self.nnet(y), y
        i = 0
        tol = atol + y.abs() * rtol
        while not torch.all((x - x_prev) ** 2 / tol < 1):
            x, x_prev = y - self.nnet(x), x
            i += 1
            if i > 1000:
                break
        return x


class ResidualFlowInverse(nn.Module):
    """Sampling direction of a residual flow: invert x + g(x) by fixed-point iteration (g contractive)."""

    def __init__(self, dim):
        super().__init__()
        net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))
        with torch.no_grad():
            for m in net:
                if isinstance(m, nn.Linear):
                    m.weight.mul_(0.3 / torch.linalg.matrix_norm(m.weight, ord=2))
        self.block = iResBlock(net)

    def forward(self, y):
        return self.block.inverse(y)
