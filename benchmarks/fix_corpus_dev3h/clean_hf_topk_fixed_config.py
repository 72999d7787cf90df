# spec: {"model": "clean_hf_topk_fixed_config.py:SamplingHead", "init": {"args": [16, 32]}, "inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16]}], "variants": [{"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16], "init": "rand"}]}, {"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16], "init": "ones"}]}]}
import torch
from torch import nn
from transformers.generation.logits_process import LogitsProcessor
from transformers.utils import add_start_docstrings
from transformers.generation.logits_process import LOGITS_PROCESSOR_INPUTS_DOCSTRING

# vendored from transformers 5.24.0 transformers/generation/logits_process.py
class TopKLogitsWarper(LogitsProcessor):

    supports_continuous_batching = True

    def __init__(self, top_k: int, filter_value: float = -float("Inf"), min_tokens_to_keep: int = 1):
        if not isinstance(top_k, int) or top_k <= 0:
            raise ValueError(f"`top_k` has to be a strictly positive integer, but is {top_k}")

        self.top_k = max(top_k, min_tokens_to_keep)
        self.filter_value = filter_value
        self.min_tokens_to_keep = min_tokens_to_keep  # used for CB processor initialization

    @add_start_docstrings(LOGITS_PROCESSOR_INPUTS_DOCSTRING)
    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        top_k = min(self.top_k, scores.size(-1))  # Safety check
        # Remove all tokens with a probability less than the last token of the top-k
        indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
        scores_processed = scores.masked_fill(indices_to_remove, self.filter_value)
        return scores_processed


class SamplingHead(nn.Module):
    def __init__(self, hidden_size, vocab_size, top_k=8):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        self.warper = TopKLogitsWarper(top_k=top_k)

    def forward(self, input_ids, hidden_states):
        next_token_logits = self.lm_head(hidden_states[:, -1, :]).float()
        next_token_scores = self.warper(input_ids, next_token_logits)
        return nn.functional.softmax(next_token_scores, dim=-1)
