# spec: {"model": "hf_gpt2_last_token_pool.py:GPT2SequenceScorer", "init": {"args": [32, 16, 3]}, "inputs": [{"tensor": [1, 7], "dtype": "int64", "init": "randint", "low": 1, "high": 32}]}
import torch
from torch import nn


class GPT2SequenceScorer(nn.Module):
    """GPT2ForSequenceClassification-style pooling: the score at the last non-pad token."""

    def __init__(self, vocab_size, hidden, num_labels, pad_token_id=0):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, hidden)
        self.block = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU())
        self.score = nn.Linear(hidden, num_labels, bias=False)
        self.pad_token_id = pad_token_id

    def forward(self, input_ids):
        hidden_states = self.block(self.wte(input_ids))
        logits = self.score(hidden_states)
        last_non_pad = (input_ids[0] != self.pad_token_id).nonzero()[-1]
        return logits[:, last_non_pad].squeeze(1)
