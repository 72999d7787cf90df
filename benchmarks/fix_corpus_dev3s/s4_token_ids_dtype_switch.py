# spec: {"model": "s4_token_ids_dtype_switch.py:Embedder", "init": {"args": [50, 8]}, "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "variants": [{"inputs": [{"tensor": [2, 6], "dtype": "int32", "init": "randint", "low": 0, "high": 50}]}]}
from torch import nn


class Embedder(nn.Module):
    """Token ids from a tokenizer (int64) or from a numpy pipeline (int32)."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, input_ids):
        return self.norm(self.embed(input_ids)).mean(1)
