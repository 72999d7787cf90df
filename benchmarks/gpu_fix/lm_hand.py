"""`lm.py` fixed by hand, as a PyTorch engineer would: the warning, the log, the timer and the
print run only in eager; the repair and the clip are applied always (idempotent); the trim to
the longest sequence becomes a mask over the padded positions (same outputs when no sequence is
padded, as in the spec; padded positions are zeroed instead of cut)."""

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
        self.act_log = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        h = self.fc2(F.gelu(self.fc1(self.ln2(x))))
        if not torch.compiler.is_compiling() and not torch.isfinite(h).all():
            warnings.warn("non-finite MLP activations; repairing them")
        h = torch.nan_to_num(h)
        x = x + h
        if not torch.compiler.is_compiling():
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
        if not torch.compiler.is_compiling():
            start = time.perf_counter()
        keep = torch.arange(ids.shape[1], device=ids.device) < lengths.max()
        x = self.tok(ids) + self.pos[: ids.shape[1]]
        x = x * keep[None, :, None].to(x.dtype)
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        if self.clip_logits:
            logits = logits.clamp(-30.0, 30.0)
        if not torch.compiler.is_compiling():
            print(f"lm: {ids.shape[0]} sequences of up to {ids.shape[1]} tokens", file=sys.stderr)
            self.last_forward_s = time.perf_counter() - start
        return logits
