# spec: {"model": "tok_detok_itos_list.py:CharDecoder", "init": {"args": [8, 6]}, "inputs": [{"tensor": [5, 8]}]}
from torch import nn


class CharDecoder(nn.Module):
    """Greedy character decoding to text with an index-to-string list (char-RNN / OCR scripts)."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.out = nn.Linear(dim, vocab)
        self.itos = ["<pad>", "a", "b", "c", "d", " "]

    def forward(self, h):
        logits = self.out(h)
        ids = logits.argmax(-1)
        text = "".join(self.itos[i] for i in ids)
        return logits, text
