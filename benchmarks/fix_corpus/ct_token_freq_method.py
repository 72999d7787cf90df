# spec: {"model": "ct_token_freq_method.py:TinyLMWithTokenStats", "init": {"args": [20, 16]}, "inputs": [{"tensor": [3, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 20}, {"tensor": [3, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
import torch.nn.functional as F
from torch import nn


class TinyLMWithTokenStats(nn.Module):
    """A small LM that scales its loss by the frequency of the target tokens in the batch,
    counting only non-padding tokens (transformers-style attention_mask)."""

    def __init__(self, vocab_size, dim):
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size, dim)
        self.lm_head = nn.Linear(dim, vocab_size)

    def token_counts(self, input_ids, attention_mask):
        real = input_ids[attention_mask.bool()]
        return real.bincount(minlength=self.vocab_size)

    def forward(self, input_ids, attention_mask):
        logits = self.lm_head(self.embed(input_ids))
        freq = self.token_counts(input_ids, attention_mask).float()
        inv = 1.0 / (freq + 1.0)
        loss = F.cross_entropy(logits.view(-1, self.vocab_size), input_ids.view(-1), weight=inv)
        return loss, freq
