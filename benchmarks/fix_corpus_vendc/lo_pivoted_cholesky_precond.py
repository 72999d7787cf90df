# spec: {"model": "lo_pivoted_cholesky_precond.py:LowRankKernelPreconditioner", "init": {"args": [4]}, "inputs": [{"tensor": [10, 4]}], "calls": 2}
import torch
from torch import nn


# vendored from linear_operator 0.6.1 linear_operator/utils/permutation.py (dense tensors: to_dense is the identity)
def apply_permutation(
    matrix,
    left_permutation=None,
    right_permutation=None,
):
    if left_permutation is None and right_permutation is None:
        return matrix

    # Create a set of index vectors for each batch dimension
    # This will ensure that the indexing operations with left_permutation and right_permutation
    # only select the elements from the appropriate batch
    batch_shape = matrix.shape[:-2]
    batch_idx = []
    for i, batch_size in enumerate(batch_shape):
        expanded_shape = [1 for _ in batch_shape] + [1, 1]
        expanded_shape[i] = batch_size
        sub_batch_idx = torch.arange(batch_size, device=matrix.device).view(*expanded_shape)
        batch_idx.append(sub_batch_idx)

    # If we don't have a left_permutation vector, we'll just use a slice
    if left_permutation is None:
        left_permutation = torch.arange(matrix.size(-2), device=matrix.device)
    if right_permutation is None:
        right_permutation = torch.arange(matrix.size(-1), device=matrix.device)

    # Apply permutations
    return matrix.__getitem__(
        (
            *batch_idx,
            left_permutation.unsqueeze(-1),
            right_permutation.unsqueeze(-2),
        )
    )


# vendored from linear_operator 0.6.1 linear_operator/functions/_pivoted_cholesky.py
# (PivotedCholesky.forward on a dense matrix, without the autograd.Function's ctx)
def pivoted_cholesky(matrix, max_iter, error_tol=None):
    batch_shape = matrix.shape[:-2]
    matrix_shape = matrix.shape[-2:]

    if error_tol is None:
        error_tol = 1e-3  # settings.preconditioner_tolerance.value()

    # Need to get diagonals. This is easy if it's a LinearOperator, since
    # LinearOperator.diagonal() operates in batch mode.
    matrix_diag = torch.diagonal(matrix, dim1=-2, dim2=-1)
    # NOTE: we will be performing inpace operations on matrix_diag
    # Calling _approx_diag() may return a tensor that shares the same storage as the LinearOperator
    # To ensure that we are not mutating any of the LinearOperator's entries, we need to clone
    #   the diagonal.
    matrix_diag = matrix_diag.clone()

    # Make sure max_iter isn't bigger than the matrix
    max_iter = min(max_iter, matrix_shape[-1])

    # What we're returning
    L = torch.zeros(
        *batch_shape,
        max_iter,
        matrix_shape[-1],
        dtype=matrix.dtype,
        device=matrix.device,
    )
    orig_error = torch.max(matrix_diag, dim=-1)[0]
    errors = torch.norm(matrix_diag, 1, dim=-1) / orig_error

    # The permutation
    permutation = torch.arange(0, matrix_shape[-1], dtype=torch.long, device=matrix_diag.device)
    permutation = permutation.repeat(*batch_shape, 1)

    m = 0
    while (m == 0) or (m < max_iter and torch.max(errors) > error_tol):
        # Get the maximum diagonal value and index
        # This will serve as the next diagonal entry of the Cholesky,
        # as well as the next entry in the permutation matrix
        permuted_diags = torch.gather(matrix_diag, -1, permutation[..., m:])
        max_diag_values, max_diag_indices = torch.max(permuted_diags, -1)
        max_diag_indices = max_diag_indices + m

        # Swap pi_m and pi_i in each row, where pi_i is the element of the permutation
        # corresponding to the max diagonal element
        old_pi_m = permutation[..., m].clone()
        permutation[..., m].copy_(permutation.gather(-1, max_diag_indices.unsqueeze(-1)).squeeze_(-1))
        permutation.scatter_(-1, max_diag_indices.unsqueeze(-1), old_pi_m.unsqueeze(-1))
        pi_m = permutation[..., m].contiguous()

        # Populate L[..., m, m] with the sqrt of the max diagonal element
        L_m = L[..., m, :]  # Will be all zeros -- should we use torch.zeros?
        L_m.scatter_(-1, pi_m.unsqueeze(-1), max_diag_values.sqrt().unsqueeze_(-1))

        # Populater L[... m:, m] with L[..., m:, m] * L[..., m, m].sqrt()
        if m + 1 < matrix_shape[-1]:
            # Get next row of the permuted matrix
            row = apply_permutation(matrix, pi_m.unsqueeze(-1), right_permutation=None).squeeze(-2)
            pi_i = permutation[..., m + 1 :].contiguous()

            L_m_new = row.gather(-1, pi_i)
            if m > 0:
                L_prev = L[..., :m, :].gather(-1, pi_i.unsqueeze(-2).repeat(*(1 for _ in batch_shape), m, 1))
                update = L[..., :m, :].gather(
                    -1,
                    pi_m.view(*pi_m.shape, 1, 1).repeat(*(1 for _ in batch_shape), m, 1),
                )
                L_m_new -= torch.sum(update * L_prev, dim=-2)

            L_m_new /= L_m.gather(-1, pi_m.unsqueeze(-1))
            L_m.scatter_(-1, pi_i, L_m_new)

            matrix_diag_current = matrix_diag.gather(-1, pi_i)
            matrix_diag.scatter_(-1, pi_i, matrix_diag_current - L_m_new**2)
            L[..., m, :] = L_m

            # Keep track of errors - for potential early stopping
            errors = torch.norm(matrix_diag.gather(-1, pi_i), 1, dim=-1) / orig_error

        m = m + 1

    return L[..., :m, :].mT.contiguous(), permutation


class LowRankKernelPreconditioner(nn.Module):
    """GP regression layer: RBF kernel on learned features, a rank-k pivoted-Cholesky preconditioner
    (as gpytorch builds before CG), and the low-rank-plus-noise solve against the targets."""

    def __init__(self, dim, rank=5, noise=0.1):
        super().__init__()
        self.feature = nn.Linear(dim, dim)
        self.log_lengthscale = nn.Parameter(torch.zeros(()))
        self.rank = rank
        self.noise = noise

    def forward(self, x):
        z = self.feature(x) / self.log_lengthscale.exp()
        K = torch.exp(-0.5 * torch.cdist(z, z) ** 2)
        with torch.no_grad():
            L, perm = pivoted_cholesky(K.detach(), self.rank)
        approx = L @ L.mT + self.noise * torch.eye(K.size(-1))
        return torch.linalg.solve(approx, K.sum(-1, keepdim=True)), perm
