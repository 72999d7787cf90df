# spec: {"model": "hf_topk_topp_warpers.py:WarpedSampler", "init": {"args": [8, 12]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 12}]}
from torch import nn
from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper


class WarpedSampler(nn.Module):
    """Sampling logits warped by transformers' temperature, top-k and top-p warpers."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.warpers = LogitsProcessorList(
            [TemperatureLogitsWarper(0.8), TopKLogitsWarper(5), TopPLogitsWarper(0.9)]
        )

    def forward(self, h, input_ids):
        scores = self.warpers(input_ids, self.lm_head(h))
        return scores.softmax(-1)
