"""torch-einops-utils: lengths to masks, masked mean and padding of ragged sequences."""

import torch
from torch_einops_utils import lens_to_mask, masked_mean, pad_sequence


class Pool(torch.nn.Module):
    def forward(self, x, lens):
        mask = lens_to_mask(lens, x.shape[1])
        pooled = masked_mean(x, mask, dim=1)
        seqs = pad_sequence([x[0, :2], x[1, :3]], dim=0)
        return pooled, seqs


def make():
    return Pool(), (torch.randn(2, 5, 4), torch.tensor([2, 5]))
