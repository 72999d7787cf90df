# spec: {"model": "einops_token_budget_item.py:TokenLearnerPool", "init": {"args": [16]}, "inputs": [{"tensor": [2, 16, 8, 8]}]}
import torch
import torch.nn as nn
from einops import rearrange, reduce


class TokenLearnerPool(nn.Module):
    """Patch tokens scored by a gate; the number of tokens kept follows the gate's mean activity."""

    def __init__(self, dim, min_tokens=4):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.min_tokens = min_tokens

    def forward(self, fmap):
        tokens = rearrange(fmap, "b c h w -> b (h w) c")
        scores = self.gate(tokens).squeeze(-1).sigmoid()
        budget = max(self.min_tokens, int(scores.mean().item() * tokens.shape[1]))
        top = scores.topk(budget, dim=1).indices
        kept = torch.gather(tokens, 1, top[..., None].expand(-1, -1, tokens.shape[-1]))
        return reduce(kept, "b n c -> b c", "mean")
