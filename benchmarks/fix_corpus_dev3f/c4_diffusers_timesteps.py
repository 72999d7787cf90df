# spec: {"model": "c4_diffusers_timesteps.py:TimeConditioner", "init": {"args": [16]}, "inputs": [{"tensor": [3, 16]}, {"tensor": [3], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}], "calls": 3}
from diffusers.models.embeddings import TimestepEmbedding, Timesteps
from torch import nn


class TimeConditioner(nn.Module):
    """diffusers' own ``Timesteps`` (sinusoidal projection) and ``TimestepEmbedding`` (MLP), as
    the UNet and DiT models wire them."""

    def __init__(self, dim, flip_sin_to_cos=True, freq_shift=0):
        super().__init__()
        self.time_proj = Timesteps(dim, flip_sin_to_cos, freq_shift)
        self.time_embedding = TimestepEmbedding(dim, dim * 4, act_fn="silu", out_dim=dim)

    def forward(self, sample, timesteps):
        t_emb = self.time_proj(timesteps)
        t_emb = t_emb.to(dtype=sample.dtype)
        emb = self.time_embedding(t_emb)
        return sample + emb
