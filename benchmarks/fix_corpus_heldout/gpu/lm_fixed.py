"""`lm.py` fixed by hand: the same modules in the same order (same seed, same weights), the same loss.

- no trim to the longest sequence: attention is causal, so the padding after the longest sequence
  changes no position the loss reads (the loss is masked to valid positions);
- the repair is always applied (`nan_to_num` leaves finite values as they are); the warning runs
  only in eager;
- the log of predicted tokens runs only in eager (compiled calls do not append);
- the logit clip is applied whenever the flag is on (`clamp` leaves values inside the bound as they
  are).
"""

import warnings

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        h = self.mlp(self.ln2(x))
        if not torch.compiler.is_compiling() and not torch.isfinite(h).all():
            warnings.warn("non-finite MLP output; replacing with zeros")
        h = torch.nan_to_num(h, nan=0.0, posinf=0.0, neginf=0.0)
        return x + h


class DecoderLM(nn.Module):
    def __init__(self, vocab=8192, dim=512, heads=8, depth=8, max_len=512, clip_logits=True):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight
        self.clip_logits = clip_logits
        self.predicted = []

    def forward(self, input_ids, lengths):
        t = input_ids.shape[1]
        x = self.tok(input_ids) + self.pos(torch.arange(t, device=input_ids.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if self.clip_logits:
            logits = logits.clamp(-30.0, 30.0)
        if not torch.compiler.is_compiling():
            last = logits[torch.arange(logits.shape[0], device=logits.device), lengths - 1]
            self.predicted.append(last.argmax(-1).tolist())
        valid = torch.arange(t, device=input_ids.device)[None, :] < (lengths[:, None] - 1)
        targets = input_ids[:, 1:]
        loss = F.cross_entropy(logits[:, :-1].transpose(1, 2).float(), targets, reduction="none")
        return (loss * valid[:, :-1]).sum() / valid[:, :-1].sum()
