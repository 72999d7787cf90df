"""A decoder-only LM (GPT-style, pre-norm, causal SDPA) written for the `bench --fix` GPU check
of issue 22, with habits of research code that break torch.compile's graph:

- each block repairs non-finite MLP activations under a tensor `if` that also warns;
- each block logs a per-call statistic on a Python list on `self`, read with `.tolist()`;
- the LM trims the batch to its longest sequence with `int(lengths.max())` as a slice bound;
- it times its forward with `time.perf_counter()` and prints a line per call;
- it clips its logits under `if self.clip_logits and <tensor condition>:`.

`lm_hand.py` is the same model fixed by hand.
"""

import sys
import time
import warnings

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.act_log = []  # mean |activation| per call, read by a monitoring hook

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        h = self.fc2(F.gelu(self.fc1(self.ln2(x))))
        if not torch.isfinite(h).all():
            warnings.warn("non-finite MLP activations; repairing them")
            h = torch.nan_to_num(h)
        x = x + h
        self.act_log.append(x.detach().abs().mean().float().tolist())
        return x


class LM(nn.Module):
    def __init__(
        self,
        vocab: int = 16000,
        dim: int = 512,
        depth: int = 12,
        heads: int = 8,
        max_len: int = 512,
    ) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(max_len, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.clip_logits = True
        self.last_forward_s = 0.0

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        start = time.perf_counter()
        n = int(lengths.max())
        ids = ids[:, :n]
        x = self.tok(ids) + self.pos[: ids.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        if self.clip_logits and logits.abs().amax() > 30.0:
            logits = logits.clamp(-30.0, 30.0)
        print(f"lm: {ids.shape[0]} sequences of up to {n} tokens", file=sys.stderr)
        self.last_forward_s = time.perf_counter() - start
        return logits
