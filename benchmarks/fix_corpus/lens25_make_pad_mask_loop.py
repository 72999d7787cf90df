# spec: {"model": "lens25_make_pad_mask_loop.py:ConformerFrontend", "init": {"args": [20, 32]}, "inputs": [{"tensor": [3, 12, 20]}, {"tensor": [3], "dtype": "int64", "data": [12, 8, 5]}]}
import torch
from torch import nn


def make_non_pad_mask(lengths, max_len):
    """ESPnet-style non-pad mask, written the old way: one row at a time."""
    batch_size = lengths.size(0)
    mask = torch.zeros(batch_size, max_len, dtype=torch.bool, device=lengths.device)
    for b in range(batch_size):
        mask[b, : int(lengths[b])] = True
    return mask


class ConformerFrontend(nn.Module):
    """Input layer of a Conformer ASR encoder: project the filterbanks, attend with a key padding
    mask built from the utterance lengths, mean over the valid frames."""

    def __init__(self, idim, adim, aheads=4):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(idim, adim), nn.LayerNorm(adim), nn.ReLU())
        self.attn = nn.MultiheadAttention(adim, aheads, batch_first=True)

    def forward(self, xs_pad, ilens):
        masks = make_non_pad_mask(ilens, xs_pad.size(1))
        xs = self.embed(xs_pad)
        xs, _ = self.attn(xs, xs, xs, key_padding_mask=~masks)
        xs = xs.masked_fill(~masks.unsqueeze(-1), 0.0)
        return xs.sum(1) / masks.sum(1, keepdim=True)
