# spec: {"model": "cnt_loss_ema_float.py:TinyLM", "init": {"args": [30, 16]}, "inputs": [{"tensor": [2, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 30}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class TinyLM(nn.Module):
    """A nanoGPT-like language model that smooths its training loss on the module for the
    progress line (`float(loss)` instead of `.item()`)."""

    def __init__(self, vocab_size, dim, beta=0.98):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        self.beta = beta
        self.smooth_loss = 0.0

    def forward(self, idx):
        logits = self.lm_head(torch.tanh(self.tok(idx)))
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), idx[:, 1:].flatten())
        self.smooth_loss = self.beta * self.smooth_loss + (1.0 - self.beta) * float(loss)
        return logits, loss
