# spec: {"model": "lens_padding_mask_zip_pool.py:SpeakerEncoder", "init": {"args": [24, 32]}, "inputs": [{"tensor": [3, 10, 24]}, {"tensor": [3], "dtype": "int64", "data": [10, 7, 4]}]}
import torch
from torch import nn


class SpeakerEncoder(nn.Module):
    """Utterance-level speaker embedding (ECAPA-lite front end, a small transformer): the key padding
    mask and the mean over each utterance's valid frames both walk `lengths.tolist()`."""

    def __init__(self, n_mels, d_model, n_heads=4):
        super().__init__()
        self.proj = nn.Linear(n_mels, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.embed = nn.Linear(d_model, d_model)

    def forward(self, mels, lengths):
        max_len = mels.size(1)
        lens = lengths.tolist()
        pad_mask = torch.stack([torch.arange(max_len) >= n for n in lens])
        h = self.encoder(self.proj(mels), src_key_padding_mask=pad_mask)
        pooled = torch.stack([x[:n].mean(dim=0) for x, n in zip(h, lens)])
        return nn.functional.normalize(self.embed(pooled), dim=-1)
