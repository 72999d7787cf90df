# spec: {"model": "asr_ctc_confidence_warn.py:ChunkedEncoder", "inputs": [{"tensor": [2, 12, 8], "init": "randn"}]}
import warnings

import torch
from torch import nn


class ChunkedEncoder(nn.Module):
    """Streaming ASR encoder (ESPnet/wenet-like) that processes chunks and stops once the CTC
    posteriors are confident, warning about low-confidence chunks."""

    def __init__(self, dim=8, vocab=6, chunk=4, stop_conf=0.9):
        super().__init__()
        self.chunk = chunk
        self.stop_conf = stop_conf
        self.enc = nn.Linear(dim, dim)
        self.ctc = nn.Linear(dim, vocab)

    def forward(self, feats):
        outs = []
        for start in range(0, feats.shape[1], self.chunk):
            h = torch.tanh(self.enc(feats[:, start : start + self.chunk]))
            post = self.ctc(h).log_softmax(-1)
            conf = post.exp().amax(-1).mean()
            warnings.warn(f"chunk at {start}: confidence {conf:.2f}")
            outs.append(post)
            if conf > self.stop_conf:
                raise StopIteration("confident")
        return torch.cat(outs, 1)
