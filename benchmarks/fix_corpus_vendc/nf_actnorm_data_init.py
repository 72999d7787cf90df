# spec: {"model": "nf_actnorm_data_init.py:GlowStyleFlowStep", "init": {"args": [4]}, "inputs": [{"tensor": [8, 4]}], "calls": 2}
import numpy as np
import torch
from torch import nn


# vendored from normflows 1.7.3 normflows/flows/base.py
class Flow(nn.Module):
    """
    Generic class for flow functions
    """

    def __init__(self):
        super().__init__()

    def forward(self, z):
        raise NotImplementedError("Forward pass has not been implemented.")

    def inverse(self, z):
        raise NotImplementedError("This flow has no algebraic inverse.")


# vendored from normflows 1.7.3 normflows/flows/affine/coupling.py
class AffineConstFlow(Flow):
    """
    scales and shifts with learned constants per dimension. In the NICE paper there is a
    scaling layer which is a special case of this where t is None
    """

    def __init__(self, shape, scale=True, shift=True):
        super().__init__()
        if scale:
            self.s = nn.Parameter(torch.zeros(shape)[None])
        else:
            self.register_buffer("s", torch.zeros(shape)[None])
        if shift:
            self.t = nn.Parameter(torch.zeros(shape)[None])
        else:
            self.register_buffer("t", torch.zeros(shape)[None])
        self.n_dim = self.s.dim()
        self.batch_dims = torch.nonzero(
            torch.tensor(self.s.shape) == 1, as_tuple=False
        )[:, 0].tolist()

    def forward(self, z):
        z_ = z * torch.exp(self.s) + self.t
        if len(self.batch_dims) > 1:
            prod_batch_dims = np.prod([z.size(i) for i in self.batch_dims[1:]])
        else:
            prod_batch_dims = 1
        log_det = prod_batch_dims * torch.sum(self.s)
        return z_, log_det


# vendored from normflows 1.7.3 normflows/flows/normalization.py
class ActNorm(AffineConstFlow):
    """
    An AffineConstFlow but with a data-dependent initialization,
    where on the very first batch we clever initialize the s,t so that the output
    is unit gaussian. As described in Glow paper.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.data_dep_init_done_cpu = torch.tensor(0.0)
        self.register_buffer("data_dep_init_done", self.data_dep_init_done_cpu)

    def forward(self, z):
        # first batch is used for initialization, c.f. batchnorm
        if not self.data_dep_init_done > 0.0:
            assert self.s is not None and self.t is not None
            s_init = -torch.log(z.std(dim=self.batch_dims, keepdim=True) + 1e-6)
            self.s.data = s_init.data
            self.t.data = (
                -z.mean(dim=self.batch_dims, keepdim=True) * torch.exp(self.s)
            ).data
            self.data_dep_init_done = torch.tensor(1.0)
        return super().forward(z)


class GlowStyleFlowStep(nn.Module):
    """One step of a Glow-like flow on feature vectors: ActNorm, then an affine coupling; returns z and log|det|."""

    def __init__(self, dim):
        super().__init__()
        self.actnorm = ActNorm((dim,))
        self.coupling = nn.Sequential(nn.Linear(dim // 2, 16), nn.ReLU(), nn.Linear(16, dim))

    def forward(self, x):
        z, log_det = self.actnorm(x)
        z1, z2 = z.chunk(2, dim=-1)
        scale, shift = self.coupling(z1).chunk(2, dim=-1)
        scale = torch.tanh(scale)
        z2 = z2 * torch.exp(scale) + shift
        return torch.cat([z1, z2], dim=-1), log_det + scale.sum(-1)
