# spec: {"model": "sampler_repetition_penalty_set.py:PenalizedNextToken", "init": {"args": [24, 50]}, "inputs": [{"tensor": [2, 24]}, {"tensor": [2, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}
import torch
from torch import nn


def apply_repetition_penalty(logits, generated, penalty):
    # CTRL-style penalty, one token id at a time
    for b in range(logits.shape[0]):
        for tok in set(generated[b].tolist()):
            if logits[b, tok] < 0:
                logits[b, tok] *= penalty
            else:
                logits[b, tok] /= penalty
    return logits


class PenalizedNextToken(nn.Module):
    """Next-token head for a chat model with a CTRL-style repetition penalty on already generated ids."""

    def __init__(self, hidden, vocab, penalty=1.3):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab)
        self.penalty = penalty

    def forward(self, hidden, generated):
        logits = apply_repetition_penalty(self.lm_head(hidden), generated, self.penalty)
        return logits.argmax(-1)
