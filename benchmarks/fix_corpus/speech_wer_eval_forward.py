# spec: {"model": "speech_wer_eval_forward.py:ASRWithWER", "init": {"args": [20, 10]}, "inputs": [{"tensor": [2, 12, 20]}, {"tensor": [2, 5], "dtype": "int64", "init": "randint", "low": 1, "high": 10}]}
import torch
from torch import nn


def edit_distance(ref, hyp):
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
            prev, d[j] = d[j], cur
    return d[-1]


class ASRWithWER(nn.Module):
    """CTC acoustic model whose forward also reports a token error rate against the references (validation-step habit)."""

    def __init__(self, feat_dim, vocab):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(feat_dim, 64), nn.ReLU(), nn.Linear(64, vocab))

    def forward(self, feats, refs):
        log_probs = self.enc(feats).log_softmax(-1)
        hyps = torch.unique_consecutive(log_probs.argmax(-1)[0]).tolist()
        errors = total = 0
        for b in range(feats.shape[0]):
            hyp = [t for t in torch.unique_consecutive(log_probs[b].argmax(-1)).tolist() if t != 0]
            ref = refs[b].tolist()
            errors += edit_distance(ref, hyp)
            total += len(ref)
        return log_probs, errors / max(total, 1), hyps
