# spec: {"model": "speculative_accept_loop.py:SpeculativeVerifier", "init": {"args": [16, 40]}, "inputs": [{"tensor": [4, 16]}, {"tensor": [4, 40]}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 40}]}
import torch
from torch import nn


class SpeculativeVerifier(nn.Module):
    """Speculative decoding: the target model verifies k draft tokens and accepts a prefix of them."""

    def __init__(self, hidden, vocab):
        super().__init__()
        self.target_head = nn.Linear(hidden, vocab)
        self.total_accepted = 0

    def forward(self, target_hidden, draft_logits, draft_tokens):
        p = self.target_head(target_hidden).softmax(-1)
        q = draft_logits.softmax(-1)
        n_accepted = 0
        for i in range(draft_tokens.shape[0]):
            tok = draft_tokens[i]
            ratio = p[i, tok] / q[i, tok]
            if torch.rand(()) < ratio:
                n_accepted += 1
                continue
            residual = (p[i] - q[i]).clamp(min=0)
            correction = torch.multinomial(residual / residual.sum(), 1)
            self.total_accepted += n_accepted
            return torch.cat([draft_tokens[:i], correction])
        self.total_accepted += n_accepted
        return draft_tokens
