# spec: {"model": "nz_lm_token_normalizer.py:TinyCausalLM", "init": {"args": [30, 16]}, "inputs": [{"tensor": [2, 9], "dtype": "int64", "init": "randint", "low": 0, "high": 30}, {"tensor": [2, 9], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
import torch.nn.functional as F
from torch import nn


class TinyCausalLM(nn.Module):
    """A transformers-style LM whose summed token loss is normalized by the number of real
    tokens, counted in a helper method with `nonzero().size(0)` and passed through `float()`."""

    def __init__(self, vocab_size, dim):
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size, dim)
        self.lm_head = nn.Linear(dim, vocab_size)

    def _num_items(self, attention_mask):
        num_tokens = attention_mask[:, 1:].nonzero().size(0)
        return float(num_tokens) + 1e-6

    def forward(self, input_ids, attention_mask):
        logits = self.lm_head(self.embed(input_ids))[:, :-1]
        labels = input_ids[:, 1:].masked_fill(attention_mask[:, 1:] == 0, -100)
        loss = F.cross_entropy(
            logits.reshape(-1, self.vocab_size), labels.reshape(-1), reduction="sum"
        )
        return loss / self._num_items(attention_mask)
