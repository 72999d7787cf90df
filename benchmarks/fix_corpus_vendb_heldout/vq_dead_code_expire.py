# spec: {"model": "vq_dead_code_expire.py:TokenizerVQ", "init": {"args": [16, 32]}, "inputs": [{"tensor": [2, 12, 16]}], "mode": "train", "calls": 2}
import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/vector_quantize_pytorch.py
# (EuclideanCodebook trimmed to the EMA update and dead-code expiry; kmeans init left out)


def exists(val):
    return val is not None


def ema_inplace(old, new, decay):
    old.lerp_(new, 1 - decay)


def laplace_smoothing(x, n_categories, eps=1e-5, dim=-1):
    denom = x.sum(dim=dim, keepdim=True)
    return (x + eps) / (denom + n_categories * eps)


def batched_sample_vectors(samples, num):
    return torch.stack([samples[i][torch.randint(0, samples.shape[1], (num,), device=samples.device)] for i in range(samples.shape[0])], dim=0)


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size, num_codebooks=1, decay=0.8, eps=1e-5, threshold_ema_dead_code=2):
        super().__init__()
        self.codebook_size = codebook_size
        self.decay = decay
        self.eps = eps
        self.threshold_ema_dead_code = threshold_ema_dead_code
        self.reset_cluster_size = threshold_ema_dead_code
        self.replace_sample_fn = batched_sample_vectors
        embed = torch.randn(num_codebooks, codebook_size, dim)
        self.register_buffer("cluster_size", torch.ones(num_codebooks, codebook_size))
        self.register_buffer("embed_avg", embed.clone())
        self.register_buffer("embed", embed)

    def replace(self, batch_samples, batch_mask):
        for ind, (samples, mask) in enumerate(zip(batch_samples, batch_mask)):
            num_dead = mask.sum().item()
            sampled = self.replace_sample_fn(rearrange(samples, "... -> 1 ..."), num_dead)
            sampled = rearrange(sampled, "1 ... -> ...")
            self.embed.data[ind][mask] = sampled
            self.cluster_size.data[ind][mask] = self.reset_cluster_size
            self.embed_avg.data[ind][mask] = sampled * self.reset_cluster_size

    def expire_codes_(self, batch_samples):
        if not self.training:
            return

        expired_codes = self.cluster_size < self.threshold_ema_dead_code

        if not torch.any(expired_codes):
            return

        batch_samples = rearrange(batch_samples, "h ... d -> h (...) d")
        self.replace(batch_samples, batch_mask=expired_codes)

    def forward(self, x):
        flatten = rearrange(x, "h ... d -> h (...) d")
        dist = -torch.cdist(flatten, self.embed, p=2)
        embed_ind = dist.argmax(dim=-1)
        embed_onehot = F.one_hot(embed_ind, self.codebook_size).type(x.dtype)
        quantize = torch.einsum("h n c, h c d -> h n d", embed_onehot, self.embed)

        if self.training:
            cluster_size = embed_onehot.sum(dim=1)
            ema_inplace(self.cluster_size.data, cluster_size, self.decay)
            embed_sum = torch.einsum("h n d, h n c -> h c d", flatten, embed_onehot)
            ema_inplace(self.embed_avg.data, embed_sum, self.decay)
            cluster_size = laplace_smoothing(self.cluster_size, self.codebook_size, self.eps) * self.cluster_size.sum(dim=-1, keepdim=True)
            self.embed.data.copy_(self.embed_avg / rearrange(cluster_size, "... -> ... 1"))
            self.expire_codes_(x)

        return quantize.view_as(x), embed_ind.view(x.shape[:-1])


class TokenizerVQ(nn.Module):
    """An audio-tokenizer bottleneck: project, quantize with an EMA codebook, project back."""

    def __init__(self, dim, codebook_size):
        super().__init__()
        self.proj_in = nn.Linear(dim, dim)
        self.codebook = EuclideanCodebook(dim, codebook_size)
        self.proj_out = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj_in(x)
        q, ids = self.codebook(h.unsqueeze(0).detach())
        q = h + (q.squeeze(0) - h).detach()
        commit = F.mse_loss(h, q.detach())
        return self.proj_out(q), commit
