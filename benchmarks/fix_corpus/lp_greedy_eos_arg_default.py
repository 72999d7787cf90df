# spec: {"model": "lp_greedy_eos_arg_default.py:TinyCaptioner", "init": {"args": [12, 16]}, "inputs": [{"tensor": [3, 16]}]}
import torch
from torch import nn


class TinyCaptioner(nn.Module):
    """Greedy caption decoding into a preallocated buffer until every row emitted EOS; the cap is
    forward's `max_len` argument (a default), counted by `step`."""

    def __init__(self, vocab, dim, eos_id=1, pad_id=0):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.eos_id = eos_id
        self.pad_id = pad_id

    def forward(self, image_feat, max_len=6):
        b = image_feat.shape[0]
        h = image_feat
        tok = torch.full((b,), self.eos_id, dtype=torch.long, device=image_feat.device)
        tokens = torch.full((b, max_len), self.pad_id, dtype=torch.long, device=image_feat.device)
        scores = image_feat.new_zeros(b)
        finished = torch.zeros(b, dtype=torch.bool, device=image_feat.device)
        step = 0
        while not finished.all():
            h = self.cell(self.emb(tok), h)
            logp = self.out(h).log_softmax(-1)
            best, tok = logp.max(-1)
            tok = torch.where(finished, torch.full_like(tok, self.pad_id), tok)
            scores = scores + torch.where(finished, torch.zeros_like(best), best)
            tokens[:, step] = tok
            finished = finished | (tok == self.eos_id)
            step += 1
            if step == max_len:
                break
        return tokens, scores
