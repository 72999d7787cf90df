# spec: {"model": "r3_multiscale_list_len.py:FPNFuse", "init": {"args": [4]}, "inputs": [[{"tensor": [1, 4, 8, 8]}, {"tensor": [1, 4, 4, 4]}]], "variants": [{"inputs": [[{"tensor": [1, 4, 8, 8]}, {"tensor": [1, 4, 4, 4]}, {"tensor": [1, 4, 2, 2]}]]}]}
import torch
import torch.nn.functional as F
from torch import nn


class FPNFuse(nn.Module):
    """Fuses a list of feature maps whose length depends on the backbone's stages."""

    def __init__(self, ch):
        super().__init__()
        self.lateral = nn.Conv2d(ch, ch, 1)

    def forward(self, feats):
        out = self.lateral(feats[0])
        for f in feats[1:]:
            out = out + F.interpolate(self.lateral(f), size=out.shape[-2:], mode="nearest")
        return out / len(feats)
