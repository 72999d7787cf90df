# spec: {"model": "gen_greedy_all_eos_done.py:TinyDecoderLM", "init": {"args": [20, 16]}, "inputs": [{"tensor": [2, 3], "dtype": "int64", "init": "randint", "low": 3, "high": 20}]}
import torch
import torch.nn as nn


class TinyDecoderLM(nn.Module):
    """GRU-free toy LM generating greedily until every sequence has produced EOS (or max_new_tokens)."""

    def __init__(self, vocab, dim, eos_id=2, max_new_tokens=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab)
        self.eos_id = eos_id
        self.max_new_tokens = max_new_tokens

    def step(self, tokens):
        h = torch.tanh(self.mix(self.embed(tokens).mean(1)))
        return self.lm_head(h)

    def forward(self, input_ids):
        finished = torch.zeros(input_ids.size(0), dtype=torch.bool)
        for _ in range(self.max_new_tokens):
            next_tok = self.step(input_ids).argmax(-1)
            next_tok = next_tok.masked_fill(finished, self.eos_id)
            input_ids = torch.cat([input_ids, next_tok[:, None]], dim=1)
            finished |= next_tok == self.eos_id
            if finished.all():
                break
        return input_ids
