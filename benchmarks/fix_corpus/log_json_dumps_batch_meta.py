# spec: {"model": "log_json_dumps_batch_meta.py:TextClassifier", "init": {"args": [50, 16, 3]}, "inputs": [{"tensor": [4, 9], "dtype": "int64", "init": "randint", "low": 1, "high": 50}]}
import json

import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    """Bag-of-embeddings classifier that emits one JSON log record per batch (structured logging)."""

    def __init__(self, vocab, dim, n_cls):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.out = nn.Linear(dim, n_cls)
        self.records = []

    def forward(self, tokens):
        logits = self.out(self.emb(tokens))
        record = json.dumps({"batch": tokens.shape[0], "seq": tokens.shape[1], "max_logit": logits.max().item()})
        self.records.append(record)
        return logits
