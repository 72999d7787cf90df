# spec: {"model": "xt_decoder_entropy_stop.py:XTransformerLM", "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 64}]}
import torch
from torch import nn
from x_transformers import Decoder, TransformerWrapper


class XTransformerLM(nn.Module):
    """An x-transformers decoder LM (random weights) with a confidence-based early-exit check."""

    def __init__(self, threshold=0.9):
        super().__init__()
        self.lm = TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Decoder(dim=32, depth=2, heads=4))
        self.threshold = threshold

    def forward(self, tokens):
        logits = self.lm(tokens)
        probs = logits[:, -1].softmax(-1)
        confident = probs.max(-1).values > self.threshold
        if confident.all():
            return logits, probs.argmax(-1)
        return logits, torch.multinomial(probs, 1).squeeze(-1)
