"""transformers: constrained decoding step (min length, no-repeat n-grams, bad words) before argmax."""

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    MinLengthLogitsProcessor,
    NoBadWordsLogitsProcessor,
    NoRepeatNGramLogitsProcessor,
)


class ConstrainedStep(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.processors = LogitsProcessorList(
            [
                MinLengthLogitsProcessor(8, eos_token_id=1),
                NoRepeatNGramLogitsProcessor(2),
                NoBadWordsLogitsProcessor([[5], [7, 8]], eos_token_id=1),
            ]
        )

    def forward(self, input_ids, scores):
        return self.processors(input_ids, scores).argmax(dim=-1)


def make():
    torch.manual_seed(0)
    return ConstrainedStep(), (torch.tensor([[3, 4, 3, 7], [2, 2, 6, 9]]), torch.randn(2, 16))
