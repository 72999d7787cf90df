# spec: {"model": "asr_ctc_maxlen_trim.py:CTCHead", "init": {"args": [16, 10]}, "inputs": [{"tensor": [3, 20, 16]}, {"tensor": [3], "dtype": "int64", "data": [20, 14, 9]}]}
import torch
from torch import nn


class CTCHead(nn.Module):
    """CTC output layer (ESPnet/NeMo style): logits trimmed to the longest utterance, blank-prob summary."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.proj = nn.Linear(dim, vocab)

    def forward(self, enc, lengths):
        max_len = int(lengths.max())
        enc = enc[:, :max_len]
        logp = self.proj(enc).log_softmax(-1)
        return logp.sum(dim=1)
