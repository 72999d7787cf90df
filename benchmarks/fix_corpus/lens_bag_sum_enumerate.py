# spec: {"model": "lens_bag_sum_enumerate.py:NBoWClassifier", "init": {"args": [40, 16, 3]}, "inputs": [{"tensor": [4, 9], "dtype": "int64", "init": "randint", "low": 0, "high": 40}, {"tensor": [4], "dtype": "int64", "data": [9, 3, 6, 1]}]}
import torch
import torch.nn as nn


class NBoWClassifier(nn.Module):
    """Neural bag-of-words text classifier (torchtext tutorial style): each sentence's embeddings are
    summed over its real tokens, the token counts read with `.tolist()`."""

    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.fc = nn.Linear(embed_dim, num_class)

    def forward(self, text, text_lengths):
        embedded = self.embedding(text)
        sizes = text_lengths.tolist()
        bags = torch.stack([embedded[i, :n].sum(0) for i, n in enumerate(sizes)])
        return self.fc(bags / text_lengths.clamp(min=1).unsqueeze(1).float())
