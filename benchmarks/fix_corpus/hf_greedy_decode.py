# spec: {"model": "hf_greedy_decode.py:TinyDecoder", "inputs": [{"tensor": [2, 3], "dtype": "int64", "init": "randint", "low": 1, "high": 20}]}
import torch
from torch import nn


class TinyDecoder(nn.Module):
    """Greedy decoding with an end-of-sequence check, the loop of a `generate()` helper."""

    def __init__(self, vocab_size=20, hidden=16, eos_token_id=0, max_new_tokens=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab_size)
        self.eos_token_id = eos_token_id
        self.max_new_tokens = max_new_tokens

    def forward(self, input_ids):
        unfinished = torch.ones(input_ids.shape[0], dtype=torch.long)
        out, h = self.rnn(self.embed(input_ids))
        for _ in range(self.max_new_tokens):
            next_tokens = self.lm_head(out[:, -1]).argmax(-1)
            next_tokens = next_tokens * unfinished + self.eos_token_id * (1 - unfinished)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            unfinished = unfinished & (next_tokens != self.eos_token_id).long()
            if unfinished.max() == 0:
                break
            out, h = self.rnn(self.embed(next_tokens[:, None]), h)
        return input_ids
