# spec: {"model": "sched_warmup_min_buffer_step.py:CurriculumMaskedLM", "init": {"args": [16, 8]}, "inputs": [{"tensor": [2, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 16}]}
import torch
from torch import nn


class CurriculumMaskedLM(nn.Module):
    """Masked LM whose masking rate follows a curriculum on the training step, the step kept as a
    buffer (so it is checkpointed) and read with builtin `min`."""

    def __init__(self, vocab, dim, ramp_steps=1000):
        super().__init__()
        self.emb = nn.Embedding(vocab + 1, dim)
        self.out = nn.Linear(dim, vocab)
        self.mask_id = vocab
        self.register_buffer("step", torch.zeros((), dtype=torch.long))
        self.ramp_steps = ramp_steps

    def forward(self, ids):
        self.step += 1
        rate = 0.05 + 0.10 * min(1.0, self.step / self.ramp_steps)
        masked = torch.rand(ids.shape) < rate
        inp = ids.masked_fill(masked, self.mask_id)
        logits = self.out(self.emb(inp))
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), ids.flatten(), reduction="none")
        return (loss * masked.flatten()).sum() / masked.sum().clamp(min=1)
