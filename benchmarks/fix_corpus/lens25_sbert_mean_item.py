# spec: {"model": "lens25_sbert_mean_item.py:SentenceEncoder", "init": {"args": [50, 24]}, "inputs": [{"tensor": [4, 9], "dtype": "int64", "init": "randint", "low": 1, "high": 50}, {"tensor": [4], "dtype": "int64", "data": [9, 4, 7, 2]}]}
import torch
from torch import nn


class SentenceEncoder(nn.Module):
    """A sentence-transformers-like encoder: a GRU over token embeddings, then mean pooling of each
    sentence over its tokens, the count read with `.item()`."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, dim)

    def forward(self, input_ids, seq_lens):
        hidden, _ = self.rnn(self.tok(input_ids))
        sentence_embeddings = []
        for i in range(hidden.size(0)):
            n_tok = seq_lens[i].item()
            sentence_embeddings.append(hidden[i, :n_tok].mean(0))
        pooled = torch.stack(sentence_embeddings)
        return nn.functional.normalize(self.head(pooled), dim=-1)
