# spec: {"model": "performer_rep_penalty.py:SamplingHead", "init": {"args": [32, 16]}, "inputs": [{"tensor": [2, 16]}, {"tensor": [2, 8], "dtype": "int64", "init": "randint", "low": 0, "high": 32}]}
import torch
from torch import nn

# vendored from performer-pytorch 1.1.4 performer_pytorch/autoregressive_wrapper.py
# (top_k and repetition_penalty_fn as AutoregressiveWrapper.generate uses them)


def top_k(logits, thres=0.9):
    k = int((1 - thres) * logits.shape[-1])
    val, ind = torch.topk(logits, k)
    probs = torch.full_like(logits, float("-inf"))
    probs.scatter_(1, ind, val)
    return probs


def repetition_penalty_fn(logits, ctx, theta=1.2):
    w = torch.ones(logits.shape[-1], dtype=torch.float, device=logits.device)
    for i in torch.unique(ctx):
        w[i] = theta
    return logits / w


class SamplingHead(nn.Module):
    """The next-token head of a Performer LM: project, penalize repeats of the context, filter."""

    def __init__(self, num_tokens, dim, repetition_penalty=1.2, repetition_penalty_ctx=32):
        super().__init__()
        self.to_logits = nn.Linear(dim, num_tokens)
        self.repetition_penalty = repetition_penalty
        self.repetition_penalty_ctx = repetition_penalty_ctx

    def forward(self, hidden, out, temperature=1.0):
        logits = self.to_logits(hidden)
        logits = repetition_penalty_fn(logits, out[-self.repetition_penalty_ctx:], theta=self.repetition_penalty)
        filtered_logits = top_k(logits, thres=0.9)
        return torch.softmax(filtered_logits / temperature, dim=-1)
