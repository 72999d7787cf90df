# spec: {"model": "ctc_unique_consecutive_collapse.py:CTCGreedyHead", "init": {"args": [8, 5]}, "inputs": [{"tensor": [12, 8]}]}
from torch import nn


class CTCGreedyHead(nn.Module):
    """CTC head with greedy decoding of one utterance: collapse repeats with
    unique_consecutive, then drop blanks."""

    def __init__(self, dim, vocab, blank=0):
        super().__init__()
        self.out = nn.Linear(dim, vocab)
        self.blank = blank

    def forward(self, frames):
        logp = self.out(frames).log_softmax(-1)
        best = logp.argmax(-1)
        collapsed = best.unique_consecutive()
        tokens = collapsed[collapsed != self.blank]
        return logp, tokens
