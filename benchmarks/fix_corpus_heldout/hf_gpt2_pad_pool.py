# spec: {"model": "hf_gpt2_pad_pool.py:GPT2SequenceScorer", "inputs": [{"tensor": [3, 10], "dtype": "int64", "init": "randint", "low": 1, "high": 100}]}
import torch
from torch import nn
from transformers import GPT2Config, GPT2Model


class GPT2SequenceScorer(nn.Module):
    """GPT-2 (tiny config, random weights) scoring sequences from the last non-pad token."""

    def __init__(self, pad_token_id=0):
        super().__init__()
        cfg = GPT2Config(vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=4)
        self.gpt = GPT2Model(cfg)
        self.score = nn.Linear(32, 1)
        self.pad_token_id = pad_token_id

    def forward(self, input_ids):
        hidden = self.gpt(input_ids=input_ids).last_hidden_state
        non_pad = input_ids != self.pad_token_id
        last = [row.nonzero()[-1, 0] for row in non_pad]
        pooled = torch.stack([hidden[i, j] for i, j in enumerate(last)])
        return self.score(pooled).squeeze(-1)
