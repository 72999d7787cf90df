# spec: {"model": "hf_temperature_warper_per_request.py:SamplingHead", "init": {"args": [16, 32]}, "inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16]}], "kwargs": {"temperature": 0.7}, "variants": [{"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16]}], "kwargs": {"temperature": 0.9}}, {"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 5, 16]}], "kwargs": {"temperature": 1.3}}]}
import torch
from torch import nn
from transformers.generation.logits_process import LogitsProcessor
from transformers.utils import add_start_docstrings
from transformers.generation.logits_process import LOGITS_PROCESSOR_INPUTS_DOCSTRING

# vendored from transformers 5.24.0 transformers/generation/logits_process.py
class TemperatureLogitsWarper(LogitsProcessor):

    supports_continuous_batching = True

    def __init__(self, temperature: float):
        if not isinstance(temperature, float) or not (temperature > 0):
            except_msg = (
                f"`temperature` (={temperature}) has to be a strictly positive float, otherwise your next token "
                "scores will be invalid."
            )
            if isinstance(temperature, float) and temperature == 0.0:
                except_msg += " If you're looking for greedy decoding strategies, set `do_sample=False`."
            raise ValueError(except_msg)

        self.temperature = temperature

    @add_start_docstrings(LOGITS_PROCESSOR_INPUTS_DOCSTRING)
    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        scores_processed = scores / self.temperature
        return scores_processed


class SamplingHead(nn.Module):
    def __init__(self, hidden_size, vocab_size):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, hidden_states, temperature=1.0):
        next_token_logits = self.lm_head(hidden_states[:, -1, :]).float()
        next_token_scores = TemperatureLogitsWarper(temperature)(input_ids, next_token_logits)
        return nn.functional.softmax(next_token_scores, dim=-1)
