# spec: {"model": "gp_rbf_covar_dist.py:DeepKernelFeatures", "init": {"args": [6, 8]}, "inputs": [{"tensor": [10, 6]}]}
import torch
from torch import nn

# vendored from gpytorch 1.15.2 gpytorch/kernels/kernel.py and gpytorch/kernels/rbf_kernel.py
# (sq_dist, dist, Kernel.covar_dist and the RBF covariance, without lazy tensors)


def postprocess_rbf(dist_mat):
    return dist_mat.div_(-2).exp_()


def sq_dist(x1, x2, x1_eq_x2=False):
    """Equivalent to the square of `torch.cdist` with p=2."""
    adjustment = x1.mean(-2, keepdim=True)
    x1 = x1 - adjustment

    # Compute squared distance matrix using quadratic expansion
    x1_norm = x1.pow(2).sum(dim=-1, keepdim=True)
    x1_pad = torch.ones_like(x1_norm)
    if x1_eq_x2 and not x1.requires_grad and not x2.requires_grad:
        x2, x2_norm, x2_pad = x1, x1_norm, x1_pad
    else:
        x2 = x2 - adjustment  # x1 and x2 should be identical in all dims except -2 at this point
        x2_norm = x2.pow(2).sum(dim=-1, keepdim=True)
        x2_pad = torch.ones_like(x2_norm)
    x1_ = torch.cat([-2.0 * x1, x1_norm, x1_pad], dim=-1)
    x2_ = torch.cat([x2, x2_pad, x2_norm], dim=-1)
    res = x1_.matmul(x2_.transpose(-2, -1))

    if x1_eq_x2 and not x1.requires_grad and not x2.requires_grad:
        res.diagonal(dim1=-2, dim2=-1).fill_(0)

    # Zero out negative values
    return res.clamp_min_(0)


def dist(x1, x2, x1_eq_x2=False):
    if not x1_eq_x2:
        res = torch.cdist(x1, x2)
        return res.clamp_min(1e-15)
    res = sq_dist(x1, x2, x1_eq_x2=x1_eq_x2)
    return res.clamp_min_(1e-30).sqrt_()


class RBFKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.zeros(1, 1))

    @property
    def lengthscale(self):
        return nn.functional.softplus(self.raw_lengthscale)

    def covar_dist(self, x1, x2, diag=False, last_dim_is_batch=False, square_dist=False):
        if last_dim_is_batch:
            x1 = x1.transpose(-1, -2).unsqueeze(-1)
            x2 = x2.transpose(-1, -2).unsqueeze(-1)

        x1_eq_x2 = torch.equal(x1, x2)
        res = None

        if diag:
            # Special case the diagonal because we can return all zeros most of the time.
            if x1_eq_x2:
                return torch.zeros(*x1.shape[:-2], x1.shape[-2], dtype=x1.dtype, device=x1.device)
            else:
                res = torch.linalg.norm(x1 - x2, dim=-1)  # 2-norm by default
                return res.pow(2) if square_dist else res
        else:
            dist_func = sq_dist if square_dist else dist
            return dist_func(x1, x2, x1_eq_x2)

    def forward(self, x1, x2, diag=False):
        x1_ = x1.div(self.lengthscale)
        x2_ = x2.div(self.lengthscale)
        return postprocess_rbf(self.covar_dist(x1_, x2_, square_dist=True, diag=diag))


class DeepKernelFeatures(nn.Module):
    """A deep-kernel GP's feature extractor followed by the RBF prior covariance of the batch."""

    def __init__(self, in_dim, feat_dim):
        super().__init__()
        self.feature_extractor = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, 2))
        self.covar_module = RBFKernel()

    def forward(self, x):
        z = self.feature_extractor(x)
        z = z - z.min(0)[0]
        covar = self.covar_module(z, z)
        return covar + 1e-4 * torch.eye(covar.shape[-1], dtype=covar.dtype)
