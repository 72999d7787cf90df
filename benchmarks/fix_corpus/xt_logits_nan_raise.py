# spec: {"model": "xt_logits_nan_raise.py:CheckedLM", "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 64}]}
import torch
from torch import nn
from x_transformers import Decoder, TransformerWrapper


class CheckedLM(nn.Module):
    """An x-transformers decoder LM (random weights) that fails fast on non-finite logits during training runs."""

    def __init__(self):
        super().__init__()
        self.lm = TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Decoder(dim=32, depth=1, heads=2))

    def forward(self, tokens):
        logits = self.lm(tokens)
        if not torch.isfinite(logits).all():
            raise FloatingPointError("non-finite logits")
        return logits.log_softmax(-1)
