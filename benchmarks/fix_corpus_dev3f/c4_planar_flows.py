# spec: {"model": "c4_planar_flows.py:NormalizingFlowModel", "init": {"args": [4], "kwargs": {"n_flows": 3}}, "inputs": [{"tensor": [5, 4]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class PlanarFlow(nn.Module):
    """Rezende & Mohamed's planar flow with the invertibility fix ``u_hat``: ``m(w.u)`` by
    softplus, all tensor arithmetic."""

    def __init__(self, dim):
        super().__init__()
        self.u = nn.Parameter(torch.randn(1, dim) * 0.01)
        self.w = nn.Parameter(torch.randn(1, dim) * 0.01)
        self.b = nn.Parameter(torch.zeros(1))

    def forward(self, z):
        wu = (self.w * self.u).sum()
        m_wu = -1 + F.softplus(wu)
        u_hat = self.u + (m_wu - wu) * self.w / (self.w.norm() ** 2)
        lin = z @ self.w.t() + self.b
        f_z = z + u_hat * torch.tanh(lin)
        psi = (1 - torch.tanh(lin) ** 2) * self.w
        log_det = torch.log((1 + psi @ u_hat.t()).abs() + 1e-8).squeeze(-1)
        return f_z, log_det


class NormalizingFlowModel(nn.Module):
    def __init__(self, dim, n_flows=4):
        super().__init__()
        self.flows = nn.ModuleList([PlanarFlow(dim) for _ in range(n_flows)])
        self.register_buffer("prior_loc", torch.zeros(dim))
        self.register_buffer("prior_scale", torch.ones(dim))

    def forward(self, x):
        m, _ = x.shape
        log_det = torch.zeros(m, device=x.device)
        zs = [x]
        for flow in self.flows:
            x, ld = flow(x)
            log_det += ld
            zs.append(x)
        prior = torch.distributions.Normal(self.prior_loc, self.prior_scale, validate_args=False)
        prior_logprob = prior.log_prob(x).sum(-1)
        return zs, prior_logprob, log_det
