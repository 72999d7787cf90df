# spec: {"model": "lx_sampler_isin_stop_list.py:StopListGenerator", "init": {"args": [30, 16]}, "inputs": [{"tensor": [1, 3], "dtype": "int64", "init": "randint", "low": 0, "high": 30}]}
import torch
from torch import nn


class StopListGenerator(nn.Module):
    """HF-style generate loop: new tokens collected in a list, stop when a token is in the stop list."""

    def __init__(self, vocab, dim, stop_token_ids=(0, 5, 7), max_new_tokens=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab)
        self.register_buffer("stop_ids", torch.tensor(stop_token_ids))
        self.max_new_tokens = max_new_tokens

    def forward(self, input_ids):
        new_tokens = []
        for _ in range(self.max_new_tokens):
            logits = self.lm_head(self.emb(input_ids).mean(1))
            next_tok = torch.argmax(logits, dim=-1)
            new_tokens.append(next_tok)
            input_ids = torch.cat([input_ids, next_tok[:, None]], dim=-1)
            if torch.isin(next_tok, self.stop_ids).any():
                break
        return torch.stack(new_tokens, dim=1)
