# spec: {"model": "mae_pred_masked_patches_mse.py:MaskedPatchDecoder", "init": {"args": [16, 12]}, "inputs": [{"tensor": [2, 10, 16]}, {"tensor": [2, 10, 12]}, {"tensor": [2, 10], "dtype": "bool", "p": 0.6}]}
import torch.nn.functional as F
from torch import nn


class MaskedPatchDecoder(nn.Module):
    """MAE / VideoMAE style: the decoder's masked tokens are normalized and projected to
    pixels, and regressed against the normalized target patches of the masked positions."""

    def __init__(self, dim, patch_dim):
        super().__init__()
        self.decoder_norm = nn.LayerNorm(dim)
        self.decoder_pred = nn.Linear(dim, patch_dim)

    def forward(self, latent, patches, mask):
        x = self.decoder_norm(latent[mask])
        pred = self.decoder_pred(x)
        target = patches[mask]
        mean = target.mean(dim=-1, keepdim=True)
        var = target.var(dim=-1, keepdim=True)
        target = (target - mean) / (var + 1.0e-6) ** 0.5
        return F.mse_loss(pred, target)
