# spec: {"model": "tok_regex_prompt_ids.py:PromptConditioner", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import re

import torch
from torch import nn

WORD_RE = re.compile(r"[a-z]+|\d")


class PromptConditioner(nn.Module):
    """Conditioning on a fixed text prompt tokenised in forward with a regex word splitter
    (a toy tokenizer living on the module), embeddings mean-pooled."""

    def __init__(self, dim, prompt="a photo of 2 dogs"):
        super().__init__()
        self.vocab = {w: i for i, w in enumerate("a photo of dogs cats 0 1 2 3".split())}
        self.prompt = prompt
        self.emb = nn.Embedding(len(self.vocab) + 1, dim)

    def forward(self, x):
        words = WORD_RE.findall(self.prompt.lower())
        ids = torch.tensor([self.vocab.get(w, len(self.vocab)) for w in words])
        return x + self.emb(ids).mean(0)
