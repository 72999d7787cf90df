# spec: {"model": "c3_xtransformers_encoder.py:TextEncoder", "init": {"args": [50, 16]}, "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "calls": 3}
from torch import nn
from x_transformers import Encoder, TransformerWrapper


class TextEncoder(nn.Module):
    """A small x-transformers encoder wrapped for sentence classification."""

    def __init__(self, num_tokens, dim, depth=1, heads=2):
        super().__init__()
        self.transformer = TransformerWrapper(
            num_tokens=num_tokens, max_seq_len=32, attn_layers=Encoder(dim=dim, depth=depth, heads=heads)
        )
        self.to_logits = nn.Linear(num_tokens, 2)

    def forward(self, tokens):
        hidden = self.transformer(tokens)
        return self.to_logits(hidden.mean(dim=1))
