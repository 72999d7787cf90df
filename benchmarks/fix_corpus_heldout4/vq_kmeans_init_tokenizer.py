# spec: {"model": "vq_kmeans_init_tokenizer.py:ConvVQTokenizer", "init": {"args": [3, 16, 32]}, "inputs": [{"tensor": [2, 3, 16, 16]}]}
import torch
from torch import nn
from vector_quantize_pytorch import VectorQuantize


class ConvVQTokenizer(nn.Module):
    """VQ-VAE image tokenizer with vector-quantize-pytorch's k-means codebook initialisation."""

    def __init__(self, in_ch, dim, codebook_size):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, dim, 4, 2, 1), nn.ReLU(), nn.Conv2d(dim, dim, 4, 2, 1))
        self.vq = VectorQuantize(dim=dim, codebook_size=codebook_size, kmeans_init=True, kmeans_iters=4,
                                 decay=0.9, commitment_weight=0.25, accept_image_fmap=True)
        self.dec = nn.Sequential(nn.ConvTranspose2d(dim, dim, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(dim, in_ch, 4, 2, 1))

    def forward(self, img):
        z = self.enc(img)
        zq, codes, commit = self.vq(z)
        recon = self.dec(zq)
        return recon, codes, commit
