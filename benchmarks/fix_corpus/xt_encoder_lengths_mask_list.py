# spec: {"model": "xt_encoder_lengths_mask_list.py:UtteranceEncoder", "init": {"args": [40, 32]}, "inputs": [{"tensor": [3, 12, 40]}, {"tensor": [3], "dtype": "int64", "init": "randint", "low": 4, "high": 13}]}
import torch
from torch import nn
from x_transformers import ContinuousTransformerWrapper, Encoder


class UtteranceEncoder(nn.Module):
    """Utterance encoder on x-transformers' ContinuousTransformerWrapper; the padding mask is built from a lengths list."""

    def __init__(self, feat_dim, dim):
        super().__init__()
        self.encoder = ContinuousTransformerWrapper(
            dim_in=feat_dim, dim_out=dim, max_seq_len=64,
            attn_layers=Encoder(dim=dim, depth=2, heads=4),
        )

    def forward(self, feats, lengths):
        T = feats.shape[1]
        lens = lengths.tolist()
        mask = torch.stack([torch.arange(T) < n for n in lens])
        h = self.encoder(feats, mask=mask)
        pooled = torch.stack([h[i, :n].mean(0) for i, n in enumerate(lens)])
        return pooled
