# spec: {"model": "ls_conf_item.py:AdaptiveLabelSmoothing", "inputs": [{"tensor": [8, 10]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
import torch.nn.functional as F
from torch import nn


class AdaptiveLabelSmoothing(nn.Module):
    """Label smoothing whose strength follows the batch's mean confidence (a paper reimplementation)."""

    def __init__(self, base_eps=0.1):
        super().__init__()
        self.base_eps = base_eps

    def forward(self, logits, target):
        conf = logits.softmax(-1).amax(-1).mean().item()
        eps = self.base_eps * min(1.0, conf * 2)
        logp = F.log_softmax(logits, dim=-1)
        nll = -logp.gather(1, target[:, None]).squeeze(1)
        smooth = -logp.mean(-1)
        return ((1 - eps) * nll + eps * smooth).mean()
