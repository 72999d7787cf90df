# spec: {"model": "vq_codebook_jit_ignore_init.py:KMeansInitCodebook", "init": {"args": [8, 6]}, "inputs": [{"tensor": [2, 12, 8]}]}
import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn


# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/vector_quantize_pytorch.py
def exists(val):
    return val is not None


def cdist(x, y):
    x2 = (x ** 2).sum(dim = -1)
    y2 = (y ** 2).sum(dim = -1)
    xy = torch.einsum('b i d, b j d -> b i j', x, y) * -2
    return (rearrange(x2, 'b i -> b i 1') + rearrange(y2, 'b j -> b 1 j') + xy).clamp(min = 0).sqrt()


def batched_sample_vectors(samples, num):
    return torch.stack([s[torch.randperm(s.shape[0], device = s.device)[:num]] for s in samples.unbind(dim = 0)], dim = 0)


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size, num_codebooks = 1, kmeans_iters = 2):
        super().__init__()
        self.codebook_size = codebook_size
        self.num_codebooks = num_codebooks
        self.kmeans_iters = kmeans_iters
        self.register_buffer('initted', torch.tensor(False))
        self.register_buffer('embed', torch.zeros(num_codebooks, codebook_size, dim))

    @torch.jit.ignore
    def init_embed_(self, data, mask = None):
        if self.initted:
            return

        if exists(mask):
            c = data.shape[0]
            data = rearrange(data[mask], '(c n) d -> c n d', c = c)

        means = batched_sample_vectors(data, self.codebook_size)
        for _ in range(self.kmeans_iters):
            buckets = torch.argmax(-cdist(data, means), dim = -1)
            onehot = F.one_hot(buckets, self.codebook_size).type(data.dtype)
            bins = onehot.sum(dim = 1).clamp(min = 1)
            means = torch.einsum('h n c, h n d -> h c d', onehot, data) / rearrange(bins, '... -> ... 1')

        self.embed.data.copy_(means)
        self.initted.data.copy_(torch.tensor(True))

    def forward(self, x):
        flatten = rearrange(x, 'b n d -> 1 (b n) d')
        self.init_embed_(flatten)
        dist = -cdist(flatten, self.embed)
        embed_ind = dist.argmax(dim = -1)
        quantize = self.embed[0][embed_ind[0]]
        return quantize.view_as(x), embed_ind.view(x.shape[:-1])


class KMeansInitCodebook(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.project_in = nn.Linear(dim, dim)
        self.codebook = EuclideanCodebook(dim, codebook_size)

    def forward(self, x):
        x = self.project_in(x)
        quantize, indices = self.codebook(x)
        return x + (quantize - x).detach(), indices
