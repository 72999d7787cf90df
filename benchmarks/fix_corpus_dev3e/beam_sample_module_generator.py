# spec: {"model": "beam_sample_module_generator.py:ReproSampler", "init": {"args": [16, 8, 4]}, "inputs": [{"tensor": [2, 3], "dtype": "int64", "init": "randint", "low": 0, "high": 16}]}
import torch
from torch import nn


class ReproSampler(nn.Module):
    """Ancestral sampling for a few steps with a module-owned `torch.Generator` (seeded once in
    __init__ so evaluation samples are reproducible)."""

    def __init__(self, vocab, dim, steps, seed=1234):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)
        self.steps = steps
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, prompt):
        out, h = self.rnn(self.emb(prompt))
        tok = prompt[:, -1:]
        samples = []
        for _ in range(self.steps):
            out, h = self.rnn(self.emb(tok), h)
            probs = self.head(out[:, -1]).softmax(-1)
            tok = torch.multinomial(probs, 1, generator=self.generator)
            samples.append(tok)
        return torch.cat(samples, dim=1)
