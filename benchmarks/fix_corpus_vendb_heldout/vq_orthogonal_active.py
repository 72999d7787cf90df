# spec: {"model": "vq_orthogonal_active.py:LatentBottleneck", "init": {"args": [16, 24]}, "inputs": [{"tensor": [2, 10, 16]}]}
import torch
import torch.nn.functional as F
from einops import rearrange
from torch import einsum, nn

# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/vector_quantize_pytorch.py
# (orthogonal_loss_fn and the "active codes only" branch of VectorQuantize.forward)


def exists(val):
    return val is not None


def l2norm(t, dim=-1):
    return F.normalize(t, p=2, dim=dim)


def orthogonal_loss_fn(t):
    # eq (2) from https://arxiv.org/abs/2112.00384
    h, n = t.shape[:2]
    normed_codes = l2norm(t)
    cosine_sim = einsum("h i d, h j d -> h i j", normed_codes, normed_codes)
    return (cosine_sim ** 2).sum() / (h * n ** 2) - (1 / n)


class LatentBottleneck(nn.Module):
    def __init__(self, dim, codebook_size, orthogonal_reg_weight=10.0, orthogonal_reg_max_codes=None, commitment_weight=1.0):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(1, codebook_size, dim))
        self.orthogonal_reg_weight = orthogonal_reg_weight
        self.orthogonal_reg_active_codes_only = True
        self.orthogonal_reg_max_codes = orthogonal_reg_max_codes
        self.commitment_weight = commitment_weight
        self.register_buffer("zero", torch.tensor(0.0), persistent=False)

    def forward(self, x):
        flatten = rearrange(x, "b n d -> 1 (b n) d")
        dist = -torch.cdist(flatten, self.embed)
        embed_ind = dist.argmax(dim=-1)
        quantize = self.embed[0][embed_ind[0]].view_as(x)

        loss = self.zero
        commit_loss = F.mse_loss(quantize.detach(), x)
        loss = loss + commit_loss * self.commitment_weight

        codebook = self.embed

        # only calculate orthogonal loss for the activated codes for this batch

        if self.orthogonal_reg_active_codes_only:
            unique_code_ids = torch.unique(embed_ind)
            codebook = codebook[:, unique_code_ids]

        num_codes = codebook.shape[-2]

        if exists(self.orthogonal_reg_max_codes) and num_codes > self.orthogonal_reg_max_codes:
            rand_ids = torch.randperm(num_codes, device=x.device)[: self.orthogonal_reg_max_codes]
            codebook = codebook[:, rand_ids]

        orthogonal_reg_loss = orthogonal_loss_fn(codebook)
        loss = loss + orthogonal_reg_loss * self.orthogonal_reg_weight

        quantize = x + (quantize - x).detach()
        return quantize, embed_ind.view(x.shape[:-1]), loss
