# spec: {"model": "c4_vq_straight_through.py:VectorQuantizer", "init": {"args": [16, 8], "kwargs": {"beta": 0.25}}, "inputs": [{"tensor": [2, 8, 4, 4]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class VectorQuantizer(nn.Module):
    """VQ-VAE's quantiser (taming-transformers ``VectorQuantizer2`` with ``legacy=True``):
    distances by the expanded square, ``argmin``, a codebook lookup by ``F.embedding``, the
    commitment loss and the straight-through estimator; ``einops``-free permutes."""

    def __init__(self, n_e, e_dim, beta=0.25, legacy=True):
        super().__init__()
        self.n_e = n_e
        self.e_dim = e_dim
        self.beta = beta
        self.legacy = legacy
        self.embedding = nn.Embedding(self.n_e, self.e_dim)
        self.embedding.weight.data.uniform_(-1.0 / self.n_e, 1.0 / self.n_e)

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flattened = z.view(-1, self.e_dim)
        d = (
            torch.sum(z_flattened**2, dim=1, keepdim=True)
            + torch.sum(self.embedding.weight**2, dim=1)
            - 2 * torch.einsum("bd,dn->bn", z_flattened, self.embedding.weight.t())
        )
        min_encoding_indices = torch.argmin(d, dim=1)
        z_q = F.embedding(min_encoding_indices, self.embedding.weight).view(z.shape)
        if not self.legacy:
            loss = self.beta * torch.mean((z_q.detach() - z) ** 2) + torch.mean((z_q - z.detach()) ** 2)
        else:
            loss = torch.mean((z_q.detach() - z) ** 2) + self.beta * torch.mean((z_q - z.detach()) ** 2)
        z_q = z + (z_q - z).detach()
        z_q = z_q.permute(0, 3, 1, 2).contiguous()
        perplexity_probs = F.one_hot(min_encoding_indices, self.n_e).float().mean(0)
        perplexity = torch.exp(-torch.sum(perplexity_probs * torch.log(perplexity_probs + 1e-10)))
        return z_q, loss, (perplexity, min_encoding_indices)
