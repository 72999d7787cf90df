# spec: {"model": "kornia_harris_keypoints.py:HarrisDescriptors", "inputs": [{"tensor": [1, 1, 32, 32], "init": "rand"}]}
import kornia
import torch
from torch import nn


class HarrisDescriptors(nn.Module):
    """Harris corners with kornia, thresholded, then a small descriptor per corner (feature-matching demo)."""

    def __init__(self, threshold=1e-4):
        super().__init__()
        self.threshold = threshold
        self.desc = nn.Conv2d(1, 8, 5, padding=2)

    def forward(self, img):
        resp = kornia.feature.harris_response(img)
        peaks = resp * (resp == nn.functional.max_pool2d(resp, 3, stride=1, padding=1))
        ys, xs = torch.nonzero(peaks[0, 0] > self.threshold, as_tuple=True)
        feats = self.desc(img)[0]
        return torch.stack([ys, xs], -1), feats[:, ys, xs].T
