# spec: {"model": "s4_padding_side_str.py:LastTokenPooler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 6, 8]}], "kwargs": {"padding_side": "right"}, "variants": [{"inputs": [{"tensor": [2, 6, 8]}], "kwargs": {"padding_side": "left"}}]}
from torch import nn


class LastTokenPooler(nn.Module):
    """Reward-model pooling of the last token, where it sits depending on the tokenizer's padding side."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1, bias=False)

    def forward(self, hidden_states, padding_side="right"):
        if padding_side == "left":
            pooled = hidden_states[:, -1]
        else:
            pooled = hidden_states[:, 0]
        return self.score(pooled).squeeze(-1)
