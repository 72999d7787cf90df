# spec: {"model": "han_sentence_split_mean.py:SentenceEncoder", "init": {"args": [8, 3]}, "inputs": [{"tensor": [9, 8], "init": "randn"}, {"tensor": [3], "dtype": "int64", "data": [2, 4, 3]}]}
import torch
from torch import nn


class SentenceEncoder(nn.Module):
    """The sentence level of a hierarchical document classifier (HAN-style): the word states of
    all sentences come packed, the sentence lengths are read with `.tolist()`, the states are
    split into sentences and each sentence is mean-pooled before the document head."""

    def __init__(self, dim, num_labels):
        super().__init__()
        self.word_proj = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, word_states, sent_lengths):
        lengths = sent_lengths.tolist()
        states = torch.tanh(self.word_proj(word_states))
        sentences = torch.split(states, lengths, dim=0)
        sent_vecs = torch.stack([torch.mean(s, dim=0) for s in sentences])
        return self.classifier(sent_vecs).mean(dim=0)
