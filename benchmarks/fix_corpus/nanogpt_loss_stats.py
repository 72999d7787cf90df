# spec: {"model": "nanogpt_loss_stats.py:TinyGPT", "inputs": [{"tensor": [2, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 64}, {"tensor": [2, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 64}], "calls": 3}
import math

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    """nanoGPT-style LM whose forward keeps the last loss and perplexity for the training log."""

    def __init__(self, vocab=64, d=32, heads=4, layers=2, block=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("causal", torch.triu(torch.ones(block, block, dtype=torch.bool), 1))
        self.last_loss = None
        self.stats = {}

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x, self.causal[:t, :t])
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        self.last_loss = loss.item()
        self.stats["ppl"] = math.exp(loss.item())
        self.stats["tokens"] = int((targets != -1).sum())
        return logits, loss
