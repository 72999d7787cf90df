# spec: {"model": "vq_kmeans_init.py:CodebookEncoder", "init": {"args": [8, 6]}, "inputs": [{"tensor": [2, 10, 8]}], "mode": "train", "calls": 2}
import torch
import torch.nn.functional as F
from einops import rearrange, repeat
from torch import nn

# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/vector_quantize_pytorch.py
# (kmeans, batched_bincount, sample_vectors and EuclideanCodebook.init_embed_ with its
# `initted` buffer, as the codebook runs with kmeans_init=True)


def noop(*args, **kwargs):
    pass


def exists(val):
    return val is not None


def cdist(x, y):
    x2 = (x**2).sum(dim=-1, keepdim=True)
    y2 = (y**2).sum(dim=-1)
    xy = torch.einsum("b i d, b j d -> b i j", x, y) * -2
    return (x2 + rearrange(y2, "b j -> b 1 j") + xy).clamp(min=0).sqrt()


def sample_vectors(samples, num):
    num_samples, device = samples.shape[0], samples.device
    if num_samples >= num:
        indices = torch.randperm(num_samples, device=device)[:num]
    else:
        indices = torch.randint(0, num_samples, (num,), device=device)
    return samples[indices]


def batched_sample_vectors(samples, num):
    return torch.stack([sample_vectors(sample, num) for sample in samples.unbind(dim=0)], dim=0)


def batched_bincount(x, *, minlength):
    batch, dtype, device = x.shape[0], x.dtype, x.device
    target = torch.zeros(batch, minlength, dtype=dtype, device=device)
    values = torch.ones_like(x)
    target.scatter_add_(-1, x, values)
    return target


def kmeans(samples, num_clusters, num_iters=10, sample_fn=batched_sample_vectors, all_reduce_fn=noop):
    num_codebooks, dim, dtype, device = samples.shape[0], samples.shape[-1], samples.dtype, samples.device

    means = sample_fn(samples, num_clusters)

    for _ in range(num_iters):
        dists = -cdist(samples, means)

        buckets = torch.argmax(dists, dim=-1)
        bins = batched_bincount(buckets, minlength=num_clusters)
        all_reduce_fn(bins)

        zero_mask = bins == 0
        bins_min_clamped = bins.masked_fill(zero_mask, 1)

        new_means = buckets.new_zeros(num_codebooks, num_clusters, dim, dtype=dtype)

        new_means.scatter_add_(1, repeat(buckets, "h n -> h n d", d=dim), samples)
        new_means = new_means / rearrange(bins_min_clamped, "... -> ... 1")
        all_reduce_fn(new_means)

        means = torch.where(rearrange(zero_mask, "... -> ... 1"), means, new_means)

    return means, bins


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size, num_codebooks=1, kmeans_iters=4):
        super().__init__()
        self.codebook_size = codebook_size
        self.kmeans_iters = kmeans_iters
        self.sample_fn = batched_sample_vectors
        self.kmeans_all_reduce_fn = noop
        self.register_buffer("initted", torch.Tensor([False]))
        self.register_buffer("cluster_size", torch.zeros(num_codebooks, codebook_size))
        self.register_buffer("embed_avg", torch.zeros(num_codebooks, codebook_size, dim))
        self.register_buffer("embed", torch.zeros(num_codebooks, codebook_size, dim))

    @torch.jit.ignore
    def init_embed_(self, data, mask=None):
        if self.initted:
            return

        if exists(mask):
            c = data.shape[0]
            data = rearrange(data[mask], "(c n) d -> c n d", c=c)

        embed, cluster_size = kmeans(data, self.codebook_size, self.kmeans_iters, sample_fn=self.sample_fn, all_reduce_fn=self.kmeans_all_reduce_fn)

        embed_sum = embed * rearrange(cluster_size, "... -> ... 1")

        self.embed.data.copy_(embed)
        self.embed_avg.data.copy_(embed_sum)
        self.cluster_size.data.copy_(cluster_size)
        self.initted.data.copy_(torch.Tensor([True]))

    def forward(self, x):
        flatten = rearrange(x, "h ... d -> h (...) d")
        self.init_embed_(flatten)
        dist = -cdist(flatten, self.embed)
        embed_ind = dist.argmax(dim=-1)
        quantize = torch.einsum("h n c, h c d -> h n d", F.one_hot(embed_ind, self.codebook_size).type(x.dtype), self.embed)
        return quantize.view_as(x), embed_ind


class CodebookEncoder(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.codebook = EuclideanCodebook(dim, codebook_size)

    def forward(self, x):
        h = self.encoder(x)
        q, _ = self.codebook(h.unsqueeze(0).detach())
        q = q.squeeze(0)
        return h + (q - h).detach(), F.mse_loss(h, q)
