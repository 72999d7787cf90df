# spec: {"model": "ee_greedy_buffer_runs.py:BufferedGreedyDecoder", "inputs": [{"tensor": [3, 4], "dtype": "int64", "init": "randint", "low": 1, "high": 12}]}
import torch
from torch import nn


class BufferedGreedyDecoder(nn.Module):
    """Greedy decoding into a preallocated buffer (static-cache generate), stopping once every
    row has produced EOS. EOS is unlikely here: the exit does not fire on the spec's inputs."""

    def __init__(self, vocab=12, dim=16, eos=0, max_new_tokens=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.lm_head = nn.Linear(dim, vocab)
        with torch.no_grad():
            self.lm_head.bias[eos] = -9.0
        self.eos = eos
        self.max_new_tokens = max_new_tokens

    def forward(self, input_ids):
        b = input_ids.shape[0]
        h = self.embed(input_ids).mean(1)
        tokens = torch.full((b, self.max_new_tokens), self.eos, dtype=torch.long)
        finished = torch.zeros(b, dtype=torch.bool)
        tok = input_ids[:, -1]
        for step in range(self.max_new_tokens):
            h = self.cell(self.embed(tok), h)
            nxt = self.lm_head(h).argmax(-1)
            nxt = torch.where(finished, torch.full_like(nxt, self.eos), nxt)
            tokens[:, step] = nxt
            finished = finished | (nxt == self.eos)
            tok = nxt
            if finished.all():
                break
        return tokens
