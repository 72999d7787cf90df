"""diffusers: sinusoidal timestep embedding and a timestep MLP, as a UNet's stem does."""

import torch
from diffusers.models.embeddings import TimestepEmbedding, Timesteps, get_timestep_embedding


class TimeStem(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = Timesteps(32, flip_sin_to_cos=True, downscale_freq_shift=0)
        self.mlp = TimestepEmbedding(32, 64)

    def forward(self, t, x):
        emb = self.mlp(self.proj(t))
        raw = get_timestep_embedding(t, 16)
        return x + emb.mean(-1, keepdim=True) + raw.sum(-1, keepdim=True)


def make():
    return TimeStem(), (torch.tensor([3, 17]), torch.randn(2, 1))
