# spec: {"model": "s3_cut_hf_top_p_remove.py:TopPSampler", "init": {"args": [16, 50]}, "inputs": [{"tensor": [1, 16]}]}
import torch
from torch import nn


class TopPSampler(nn.Module):
    """Transformers-style nucleus filter on one sequence's logits: the tokens after the nucleus
    (a suffix of the descending sort, its start read with `.item()`) get `self.filter_value`."""

    def __init__(self, dim, vocab, top_p=0.8, filter_value=-float("inf")):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.top_p = top_p
        self.filter_value = filter_value

    def forward(self, hidden):
        logits = self.lm_head(hidden)[0]
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cum_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        n_keep = (cum_probs < self.top_p).sum().item() + 1
        to_remove = sorted_indices[n_keep:]
        logits = logits.clone()
        logits[to_remove] = self.filter_value
        return logits.log_softmax(-1)
