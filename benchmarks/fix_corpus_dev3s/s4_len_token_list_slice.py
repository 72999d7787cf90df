# spec: {"model": "s4_len_token_list_slice.py:PromptTuner", "init": {"args": [8]}, "inputs": [{"tensor": [2, 10, 8]}, [101, 2023, 102]], "variants": [{"inputs": [{"tensor": [2, 10, 8]}, [101, 2023, 2003, 1037, 102]]}]}
import torch
from torch import nn


class PromptTuner(nn.Module):
    """Soft-prompt tuning: the prompt length is `len(prompt_ids)`, a list from the tokenizer."""

    def __init__(self, dim, max_prompt=8):
        super().__init__()
        self.soft_prompt = nn.Parameter(torch.randn(max_prompt, dim))
        self.out = nn.Linear(dim, dim)

    def forward(self, hidden, prompt_ids):
        n_prompt = len(prompt_ids)
        prompt = self.soft_prompt[:n_prompt].expand(hidden.shape[0], -1, -1)
        hidden = torch.cat([prompt, hidden[:, n_prompt:]], dim=1)
        return self.out(hidden)
