# spec: {"model": "hf_no_repeat_ngram_proc.py:NgramBlockedStep", "init": {"args": [8, 12]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 12}]}
from torch import nn
from transformers import NoRepeatNGramLogitsProcessor


class NgramBlockedStep(nn.Module):
    """One decoding step with transformers' no-repeat-n-gram processor on the logits."""

    def __init__(self, dim, vocab, n=2):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.proc = NoRepeatNGramLogitsProcessor(n)

    def forward(self, h, input_ids):
        scores = self.lm_head(h)
        scores = self.proc(input_ids, scores)
        return scores.argmax(-1)
