"""transformers: the causal LM loss helper (shift, ignore_index, mean over tokens) behind an LM head."""

import torch
from transformers.loss.loss_utils import ForCausalLMLoss


class LMHead(torch.nn.Module):
    def __init__(self, dim: int = 16, vocab: int = 32) -> None:
        super().__init__()
        self.head = torch.nn.Linear(dim, vocab, bias=False)
        self.vocab = vocab

    def forward(self, hidden, labels):
        logits = self.head(hidden)
        return ForCausalLMLoss(logits, labels, vocab_size=self.vocab)


def make():
    torch.manual_seed(0)
    labels = torch.randint(0, 32, (2, 7))
    labels[0, :2] = -100
    return LMHead(), (torch.randn(2, 7, 16), labels)
