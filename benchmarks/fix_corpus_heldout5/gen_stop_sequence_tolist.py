# spec: {"model": "gen_stop_sequence_tolist.py:StopStringSampler", "init": {"args": [24, 12]}, "inputs": [{"tensor": [1, 4], "dtype": "int64", "init": "randint", "low": 0, "high": 24}]}
import torch
from torch import nn


class StopStringSampler(nn.Module):
    """Chat-serving style decode loop that halts when the generated ids end with a stop sequence."""

    def __init__(self, vocab, dim, stop_sequences=((5, 6), (7,)), max_new=5):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, vocab)
        self.stop_sequences = [list(s) for s in stop_sequences]
        self.max_new = max_new

    def forward(self, ids):
        generated = []
        for _ in range(self.max_new):
            logits = self.proj(self.tok(ids).sum(1))
            nxt = torch.argmax(logits, dim=-1, keepdim=True)
            ids = torch.cat([ids, nxt], dim=-1)
            generated.extend(nxt[0].tolist())
            if any(generated[-len(s):] == s for s in self.stop_sequences):
                break
        return ids
