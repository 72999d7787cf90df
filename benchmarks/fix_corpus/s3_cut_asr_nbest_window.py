# spec: {"model": "s3_cut_asr_nbest_window.py:NBestRescore", "init": {"args": [16, 30]}, "inputs": [{"tensor": [2, 16]}, {"tensor": [2], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
import torch.nn.functional as F
from torch import nn


class NBestRescore(nn.Module):
    """ESPnet-like n-best rescoring: hypotheses ranked by the first pass; those in a window of
    ranks [lo, hi) (both read from the batch's tensor with `int()`) take the second-pass score,
    scaled, for the first utterance."""

    def __init__(self, dim, n_hyps, scale=0.5):
        super().__init__()
        self.first = nn.Linear(dim, n_hyps)
        self.second = nn.Linear(dim, n_hyps)
        self.scale = scale

    def forward(self, enc, window):
        s1 = self.first(enc)
        s2 = self.second(enc)
        idx = s1.detach().argsort(dim=-1, descending=True)
        lo = int(window.min())
        hi = int(window.max()) + 3
        chosen = idx[0, lo:hi]
        out = s1.clone()
        out[0, chosen] = self.scale * s2[0, chosen] + (1 - self.scale) * s1[0, chosen]
        return F.log_softmax(out, -1)
