# spec: {"model": "hf_repetition_penalty_decode.py:PenalisedHead", "init": {"args": [16, 32]}, "inputs": [{"tensor": [1, 4], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}], "variants": [{"inputs": [{"tensor": [1, 5], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}, {"inputs": [{"tensor": [1, 6], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}, {"inputs": [{"tensor": [1, 7], "dtype": "int64", "init": "randint", "high": 32}, {"tensor": [1, 1, 16]}]}]}
import torch
from torch import nn
from transformers.generation.logits_process import LogitsProcessor
from transformers.utils import add_start_docstrings
from transformers.generation.logits_process import LOGITS_PROCESSOR_INPUTS_DOCSTRING

# vendored from transformers 5.24.0 transformers/generation/logits_process.py
class RepetitionPenaltyLogitsProcessor(LogitsProcessor):

    supports_continuous_batching = False

    def __init__(self, penalty: float, prompt_ignore_length: int | torch.Tensor | None = None):
        if not isinstance(penalty, float) or not (penalty > 0):
            raise ValueError(f"`penalty` has to be a strictly positive float, but is {penalty}")

        if prompt_ignore_length is not None:
            if isinstance(prompt_ignore_length, int) and prompt_ignore_length < 0:
                raise ValueError(f"`prompt_ignore_length` has to be a positive integer, but is {prompt_ignore_length}")
            if isinstance(prompt_ignore_length, torch.Tensor) and prompt_ignore_length.dim() != 1:
                raise ValueError("`prompt_ignore_length` must be 1D")

        self.penalty = penalty
        self.prompt_ignore_length = prompt_ignore_length
        self.logits_indices = None
        self.cu_seq_lens_q = None

    @add_start_docstrings(LOGITS_PROCESSOR_INPUTS_DOCSTRING)
    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        vocab_size = scores.shape[-1]
        # In this case simply cut the prompt
        if isinstance(self.prompt_ignore_length, int):
            input_ids = input_ids[:, self.prompt_ignore_length :]
        # In this case, set all ids we do not want to take into account at `vocab_size`, we will then filter them out after `scatter`
        elif isinstance(self.prompt_ignore_length, torch.Tensor):
            if input_ids.shape[0] != self.prompt_ignore_length.shape[0]:
                raise ValueError("Incompatible `prompt_ignore_length` batch size")
            # Set the device in-place so that future calls will be a no-op
            self.prompt_ignore_length = self.prompt_ignore_length.to(input_ids.device)
            positions = torch.arange(input_ids.shape[1], device=input_ids.device)
            input_ids = input_ids.masked_fill(positions[None, :] < self.prompt_ignore_length[:, None], vocab_size)

        if scores.dim() == 3:
            if self.logits_indices is not None and self.cu_seq_lens_q is not None:
                last_positions = self.logits_indices
                last_scores = scores[0, last_positions, :]

                # Prepare token mask
                token_mask = torch.zeros(
                    (*last_scores.shape[:-1], vocab_size + 1), dtype=torch.bool, device=last_scores.device
                )
                cu_seq_lens = self.cu_seq_lens_q
                lengths = cu_seq_lens[1:] - cu_seq_lens[:-1]
                seq_indices = torch.repeat_interleave(torch.arange(len(lengths), device=input_ids.device), lengths)
                token_mask[seq_indices, input_ids] = True

                # Apply penalty
                penalty_scores = torch.where(last_scores < 0, last_scores * self.penalty, last_scores / self.penalty)
                scores[0, last_positions, :] = torch.where(token_mask[..., :vocab_size], penalty_scores, last_scores)
            else:
                last_scores = scores[:, -1, :]
                token_mask = torch.zeros(
                    (*last_scores.shape[:-1], vocab_size + 1), dtype=torch.bool, device=last_scores.device
                )
                if input_ids.dim() == 1:
                    unique_tokens = torch.unique(input_ids)
                    token_mask.scatter_(1, unique_tokens.unsqueeze(0), True)
                else:
                    token_mask.scatter_(1, input_ids, True)
                # if last_scores < 0 then repetition penalty has to be multiplied to reduce the token probabilities
                penalty_scores = torch.where(last_scores < 0, last_scores * self.penalty, last_scores / self.penalty)
                scores[:, -1, :] = torch.where(token_mask[..., :vocab_size], penalty_scores, last_scores)
            return scores

        if input_ids.dim() == 1:
            input_ids = input_ids.unsqueeze(1)

        # In some very rare cases, the embedding vocab may be larger than the lm_head output - in those cases, clamp the
        # ids > output vocab_size to a fix index that we drop afterwards (the tokens with id > output_vocab cannot be
        # generated by the model, so there's no need to apply a penalty to them)
        input_ids = input_ids.clamp(max=vocab_size)
        # Pad by 1 to absorb all the indices larger than output vocab that were clamped to the vocab
        scores = torch.nn.functional.pad(scores, (0, 1))

        score = torch.gather(scores, 1, input_ids)
        # if score < 0 then repetition penalty has to be multiplied to reduce the token probabilities
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        scores_processed = scores.scatter(1, input_ids, score)
        # Drop the last padded index that we mapped to all tokens outside the output vocab_size, since they cannot be generated
        # by the model anyway so no need to apply the penalty
        scores_processed = scores_processed[..., :vocab_size]
        return scores_processed


class PenalisedHead(nn.Module):
    def __init__(self, hidden_size, vocab_size):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)
        self.processor = RepetitionPenaltyLogitsProcessor(penalty=1.2)

    def forward(self, input_ids, hidden_states):
        next_token_logits = self.lm_head(hidden_states[:, -1, :]).float()
        scores = self.processor(input_ids, next_token_logits)
        return torch.argmax(scores, dim=-1)
