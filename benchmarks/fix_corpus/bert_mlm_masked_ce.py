# spec: {"model": "bert_mlm_masked_ce.py:MLMHead", "init": {"args": [50, 16]}, "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 50}, {"tensor": [2, 12], "dtype": "bool", "p": 0.3}]}
import torch
import torch.nn.functional as F
from torch import nn


class MLMHead(nn.Module):
    """A masked-LM objective computed only on the masked positions (BERT pretraining scripts, `logits[mask]`)."""

    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.enc = nn.TransformerEncoderLayer(hidden, 2, 32, dropout=0.0, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, input_ids, mlm_mask):
        h = self.enc(self.emb(input_ids.masked_fill(mlm_mask, 0)))
        logits = self.decoder(h)
        return F.cross_entropy(logits[mlm_mask], input_ids[mlm_mask], label_smoothing=0.1)
