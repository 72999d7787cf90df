# spec: {"model": "linop_safe_cholesky.py:WhitenedGPLayer", "init": {"args": [4, 10]}, "inputs": [{"tensor": [10, 4]}]}
import warnings

import torch
from torch import nn

# vendored from linear_operator 0.6.1 linear_operator/utils/cholesky.py
# (_psd_safe_cholesky and psd_safe_cholesky; settings replaced by their default values)


class NanError(RuntimeError):
    pass


class NotPSDError(RuntimeError):
    pass


class NumericalWarning(RuntimeWarning):
    pass


_CHOLESKY_JITTER = {torch.float32: 1e-6, torch.float64: 1e-8}
_CHOLESKY_MAX_TRIES = 3


def _psd_safe_cholesky(A, out=None, jitter=None, max_tries=None):
    L, info = torch.linalg.cholesky_ex(A, out=out)
    if not torch.any(info):
        return L

    isnan = torch.isnan(A)
    if isnan.any():
        raise NanError(f"cholesky_cpu: {isnan.sum().item()} of {A.numel()} elements of the {A.shape} tensor are NaN.")

    if jitter is None:
        jitter = _CHOLESKY_JITTER[A.dtype]
    if max_tries is None:
        max_tries = _CHOLESKY_MAX_TRIES
    Aprime = A.clone()
    jitter_prev = 0
    for i in range(max_tries):
        jitter_new = jitter * (10**i)
        # add jitter only where needed
        diag_add = ((info > 0) * (jitter_new - jitter_prev)).unsqueeze(-1).expand(*Aprime.shape[:-1])
        Aprime.diagonal(dim1=-1, dim2=-2).add_(diag_add)
        jitter_prev = jitter_new
        warnings.warn(
            f"A not p.d., added jitter of {jitter_new:.1e} to the diagonal",
            NumericalWarning,
        )
        L, info = torch.linalg.cholesky_ex(Aprime, out=out)
        if not torch.any(info):
            return L
    raise NotPSDError(f"Matrix not positive definite after repeatedly adding jitter up to {jitter_new:.1e}.")


def psd_safe_cholesky(A, upper=False, out=None, jitter=None, max_tries=None):
    L = _psd_safe_cholesky(A, out=out, jitter=jitter, max_tries=max_tries)
    if upper:
        if out is not None:
            out = out.transpose_(-1, -2)
        else:
            L = L.transpose(-1, -2)
    return L


class WhitenedGPLayer(nn.Module):
    """A whitened variational GP layer: sample the latent function at the batch inputs."""

    def __init__(self, dim, num_points):
        super().__init__()
        self.log_ls = nn.Parameter(torch.zeros(dim))
        self.whitened = nn.Parameter(0.1 * torch.randn(num_points))

    def forward(self, x):
        z = x / self.log_ls.exp()
        K = torch.exp(-0.5 * torch.cdist(z, z).pow(2))
        L = psd_safe_cholesky(K + 1e-5 * torch.eye(K.shape[-1], dtype=K.dtype))
        return L @ self.whitened
