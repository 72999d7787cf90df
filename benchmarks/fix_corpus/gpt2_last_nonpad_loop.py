# spec: {"model": "gpt2_last_nonpad_loop.py:LastTokenClassifier", "init": {"args": [40, 16, 3]}, "inputs": [{"tensor": [3, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
from torch import nn


class LastTokenClassifier(nn.Module):
    """Sequence classification from the last non-pad token, found per row with nonzero() (GPT-2 classifier fine-tuning scripts)."""

    def __init__(self, vocab, hidden, num_labels, pad_token_id=0):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())
        self.score = nn.Linear(hidden, num_labels)
        self.pad_token_id = pad_token_id

    def forward(self, input_ids):
        logits = self.score(self.mlp(self.wte(input_ids)))
        pooled = []
        for b in range(input_ids.shape[0]):
            last = (input_ids[b] != self.pad_token_id).nonzero().max()
            pooled.append(logits[b].index_select(0, last.view(1)))
        return torch.cat(pooled)
