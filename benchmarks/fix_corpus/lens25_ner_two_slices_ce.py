# spec: {"model": "lens25_ner_two_slices_ce.py:TokenTagger", "init": {"args": [40, 16, 5]}, "inputs": [{"tensor": [3, 8], "dtype": "int64", "init": "randint", "low": 1, "high": 40}, {"tensor": [3, 8], "dtype": "int64", "init": "randint", "low": 0, "high": 5}, {"tensor": [3], "dtype": "int64", "data": [8, 5, 3]}]}
import torch
from torch import nn
import torch.nn.functional as F


class TokenTagger(nn.Module):
    """A BiLSTM tagger (NER, flair-like): emission scores per token, a log-softmax over tags, the
    negative log-likelihood of each sentence summed over its own tokens (logits and gold tags
    sliced by one length)."""

    def __init__(self, vocab, dim, n_tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(dim, n_tags)

    def forward(self, tokens, tags, lengths):
        feats, _ = self.lstm(self.emb(tokens))
        logp = F.log_softmax(self.out(feats), dim=-1)
        gold = logp.gather(2, tags.unsqueeze(-1)).squeeze(-1)
        scores = torch.exp(gold)
        nll = logp.new_zeros(())
        for i in range(tokens.size(0)):
            sent_len = int(lengths[i])
            nll = nll - (gold[i, :sent_len] * scores[i, :sent_len].detach()).sum()
        return nll / lengths.sum()
