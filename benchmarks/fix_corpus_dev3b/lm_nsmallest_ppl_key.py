# spec: {"model": "lm_nsmallest_ppl_key.py:RerankByPerplexity", "init": {"args": [8, 11]}, "inputs": [{"tensor": [5, 4, 8]}, {"tensor": [5, 4], "dtype": "int64", "init": "randint", "low": 0, "high": 11}]}
import heapq

import torch
from torch import nn


class RerankByPerplexity(nn.Module):
    """N-best reranking: each hypothesis scored by an LM's perplexity, the best ones kept with
    heapq.nsmallest (ASR / MT rescoring scripts)."""

    def __init__(self, dim, vocab, keep=2):
        super().__init__()
        self.lm = nn.Linear(dim, vocab)
        self.keep = keep

    def forward(self, states, tokens):
        logp = self.lm(states).log_softmax(-1)
        nll = -logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1).mean(-1)
        ppl = nll.exp()
        best = heapq.nsmallest(self.keep, range(ppl.shape[0]), key=lambda i: ppl[i])
        return ppl[torch.tensor(best)], tokens[torch.tensor(best)]
