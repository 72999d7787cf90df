"""transformers: a sampling step through generation logits processors (repetition penalty, top-k, top-p)."""

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)


class Sampler(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.processors = LogitsProcessorList(
            [
                RepetitionPenaltyLogitsProcessor(penalty=1.2),
                TemperatureLogitsWarper(0.7),
                TopKLogitsWarper(top_k=5),
                TopPLogitsWarper(top_p=0.9),
            ]
        )

    def forward(self, input_ids, scores):
        scores = self.processors(input_ids, scores)
        return torch.softmax(scores, dim=-1)


def make():
    torch.manual_seed(0)
    return Sampler(), (torch.randint(0, 32, (2, 6)), torch.randn(2, 32))
