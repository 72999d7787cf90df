# spec: {"model": "det_scipy_expit_scores.py:CenterHeatmapDecoder", "init": {"args": [8, 3]}, "inputs": [{"tensor": [1, 8, 6, 6]}]}
import numpy as np
import torch
from scipy.special import expit
from torch import nn


class CenterHeatmapDecoder(nn.Module):
    """CenterNet-style heatmap head whose post-processing was ported from a numpy demo: the
    sigmoid is scipy's expit on the host, the top scores are gathered back in torch."""

    def __init__(self, ch, classes, k=5):
        super().__init__()
        self.hm = nn.Conv2d(ch, classes, 3, padding=1)
        self.k = k

    def forward(self, feats):
        logits = self.hm(feats)
        heat = torch.from_numpy(expit(logits.detach().numpy()).astype(np.float32))
        flat = heat.flatten(1)
        scores, inds = flat.topk(self.k, dim=1)
        return scores, inds
