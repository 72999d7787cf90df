# spec: {"model": "s4_mask_tensor_data_no_recompile.py:MaskedMeanPooler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}, {"tensor": [2, 5], "dtype": "bool", "p": 0.9}], "variants": [{"inputs": [{"tensor": [2, 5, 8]}, {"tensor": [2, 5], "dtype": "bool", "p": 0.5}]}]}
from torch import nn


class MaskedMeanPooler(nn.Module):
    """Mean pooling over the unpadded tokens; the mask's values change, its shape does not."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, attention_mask):
        mask = attention_mask.unsqueeze(-1).to(hidden_states.dtype)
        summed = (self.proj(hidden_states) * mask).sum(1)
        return summed / mask.sum(1).clamp(min=1.0)
