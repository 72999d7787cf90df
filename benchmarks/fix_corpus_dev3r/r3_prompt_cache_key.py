# spec: {"model": "r3_prompt_cache_key.py:PromptEmbed", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, "photo"], "variants": [{"inputs": [{"tensor": [2, 8]}, "sketch"]}, {"inputs": [{"tensor": [2, 8]}, "photo"]}]}
import torch
from torch import nn


class PromptEmbed(nn.Module):
    """Domain prompts looked up by a string key from a ParameterDict."""

    def __init__(self, dim):
        super().__init__()
        self.prompts = nn.ParameterDict({k: nn.Parameter(torch.randn(dim)) for k in ("photo", "sketch", "art")})

    def forward(self, x, domain):
        return x + self.prompts[domain]
