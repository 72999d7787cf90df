# spec: {"model": "hf_min_length_growing_ids.py:GreedyStep", "init": {"args": [16, 32]}, "inputs": [{"tensor": [1, 2], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}], "variants": [{"inputs": [{"tensor": [1, 3], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}, {"inputs": [{"tensor": [1, 4], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}, {"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}]}
import math

import torch
from torch import nn
from transformers.generation.logits_process import LogitsProcessor
from transformers.utils import add_start_docstrings
from transformers.generation.logits_process import LOGITS_PROCESSOR_INPUTS_DOCSTRING

# vendored from transformers 5.24.0 transformers/generation/logits_process.py
class MinLengthLogitsProcessor(LogitsProcessor):

    supports_continuous_batching: bool = False

    def __init__(self, min_length: int, eos_token_id: int | list[int] | torch.Tensor, device: str = "cpu"):
        if not isinstance(min_length, int) or min_length < 0:
            raise ValueError(f"`min_length` has to be a non-negative integer, but is {min_length}")

        if not isinstance(eos_token_id, torch.Tensor):
            if isinstance(eos_token_id, int):
                eos_token_id = [eos_token_id]
            eos_token_id = torch.tensor(eos_token_id, device=device)

        self.min_length = min_length
        self.eos_token_id = eos_token_id

    @add_start_docstrings(LOGITS_PROCESSOR_INPUTS_DOCSTRING)
    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        vocab_tensor = torch.arange(scores.shape[-1], device=scores.device)
        eos_token_mask = torch.isin(vocab_tensor, self.eos_token_id)
        scores_processed = scores.clone()
        if input_ids.shape[-1] < self.min_length:
            scores_processed = torch.where(eos_token_mask, -math.inf, scores)
        return scores_processed


class GreedyStep(nn.Module):
    def __init__(self, hidden_size, vocab_size, min_length=4, eos_token_id=2):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        self.min_length = MinLengthLogitsProcessor(min_length, eos_token_id)

    def forward(self, input_ids, hidden_states):
        next_token_logits = self.lm_head(hidden_states[:, -1, :]).float()
        next_token_scores = self.min_length(input_ids, next_token_logits)
        next_tokens = torch.argmax(next_token_scores, dim=-1)
        return torch.cat([input_ids, next_tokens[:, None]], dim=-1)
