"""`t5.py` fixed by hand: the same modules in the same order (same seed, same weights), the same outputs.

- no trim to the longest source: every source position past a sentence's length is masked as a
  key (in the encoder's self-attention and in cross-attention), so padding changes no output;
  the mask is built from the lengths over the padded width;
- the inf clamp is branchless, as in transformers' T5 (`torch.where` picks the clamp value: the
  dtype's max when nothing is infinite, so finite values stay as they are); the warning runs only
  in eager;
- the entropy log of cross-attention runs only in eager (compiled calls do not append);
- the loss is divided by the token count as a tensor, `clamp_min(1)` in place of Python's `max`.
"""

import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn


class T5LayerNorm(nn.Module):
    """RMS norm without bias or mean subtraction, as in T5."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        var = x.float().pow(2).mean(-1, keepdim=True)
        return self.weight * (x.float() * torch.rsqrt(var + self.eps)).type_as(x)


def relative_position_bucket(
    relative_position, bidirectional=True, num_buckets=32, max_distance=128
):
    buckets = 0
    if bidirectional:
        num_buckets //= 2
        buckets = (relative_position > 0).long() * num_buckets
        relative_position = relative_position.abs()
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = (
        max_exact
        + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).long()
    )
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, relative_position, large)


class RelativePositionBias(nn.Module):
    def __init__(self, heads, bidirectional, num_buckets=32, max_distance=128):
        super().__init__()
        self.bidirectional = bidirectional
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.embedding = nn.Embedding(num_buckets, heads)

    def forward(self, q_len, k_len, device):
        context = torch.arange(q_len, dtype=torch.long, device=device)[:, None]
        memory = torch.arange(k_len, dtype=torch.long, device=device)[None, :]
        bucket = relative_position_bucket(
            memory - context, self.bidirectional, self.num_buckets, self.max_distance
        )
        return self.embedding(bucket).permute(2, 0, 1).unsqueeze(0)  # 1, heads, q, k


class Attention(nn.Module):
    def __init__(self, dim, heads, log_entropy=False):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim, bias=False)
        self.k = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.log_entropy = log_entropy
        self.entropy_log = []

    def forward(self, x, kv, bias):
        b, t, d = x.shape
        s = kv.shape[1]
        h = self.heads
        q = self.q(x).view(b, t, h, d // h).transpose(1, 2)
        k = self.k(kv).view(b, s, h, d // h).transpose(1, 2)
        v = self.v(kv).view(b, s, h, d // h).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) + bias  # T5 does not scale by 1/sqrt(d)
        probs = scores.float().softmax(dim=-1)
        if self.log_entropy and not torch.compiler.is_compiling():
            entropy = -(probs * probs.clamp_min(1e-9).log()).sum(-1)
            self.entropy_log.append(entropy.mean(dim=(0, 2)).tolist())
        y = probs.type_as(v) @ v
        return self.o(y.transpose(1, 2).reshape(b, t, d))


class GatedFF(nn.Module):
    """T5 v1.1 gated-GELU feed-forward."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.wi_0 = nn.Linear(dim, hidden, bias=False)
        self.wi_1 = nn.Linear(dim, hidden, bias=False)
        self.wo = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.wo(F.gelu(self.wi_0(x), approximate="tanh") * self.wi_1(x))


def clamp_inf(x):
    if not torch.compiler.is_compiling() and torch.isinf(x).any():
        warnings.warn("inf activations in a T5 layer (fp16 overflow?); clamping")
    finfo = torch.finfo(x.dtype)
    clamp_value = torch.where(
        torch.isinf(x).any(),
        torch.tensor(finfo.max - 1000, dtype=x.dtype, device=x.device),
        torch.tensor(finfo.max, dtype=x.dtype, device=x.device),
    )
    return torch.clamp(x, min=-clamp_value, max=clamp_value)


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.ln1 = T5LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.ln2 = T5LayerNorm(dim)
        self.ff = GatedFF(dim, hidden)

    def forward(self, x, bias):
        h = self.ln1(x)
        x = x + self.attn(h, h, bias)
        x = x + self.ff(self.ln2(x))
        return clamp_inf(x)


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.ln1 = T5LayerNorm(dim)
        self.self_attn = Attention(dim, heads)
        self.ln2 = T5LayerNorm(dim)
        self.cross_attn = Attention(dim, heads, log_entropy=True)
        self.ln3 = T5LayerNorm(dim)
        self.ff = GatedFF(dim, hidden)

    def forward(self, x, enc, self_bias, cross_bias):
        h = self.ln1(x)
        x = x + self.self_attn(h, h, self_bias)
        x = x + self.cross_attn(self.ln2(x), enc, cross_bias)
        x = x + self.ff(self.ln3(x))
        return clamp_inf(x)


class T5(nn.Module):
    def __init__(self, vocab=8192, dim=512, heads=8, depth=6, hidden=1536, pad_id=0):
        super().__init__()
        self.dim = dim
        self.pad_id = pad_id
        self.shared = nn.Embedding(vocab, dim)
        self.enc_bias = RelativePositionBias(heads, bidirectional=True)
        self.dec_bias = RelativePositionBias(heads, bidirectional=False)
        self.encoder = nn.ModuleList([EncoderLayer(dim, heads, hidden) for _ in range(depth)])
        self.decoder = nn.ModuleList([DecoderLayer(dim, heads, hidden) for _ in range(depth)])
        self.enc_norm = T5LayerNorm(dim)
        self.dec_norm = T5LayerNorm(dim)
        nn.init.normal_(self.shared.weight, std=1.0)

    def encode(self, input_ids, src_mask):
        x = self.shared(input_ids)
        s = input_ids.shape[1]
        pad = (~src_mask)[:, None, None, :].to(x.dtype) * torch.finfo(x.dtype).min
        bias = self.enc_bias(s, s, x.device).to(x.dtype) + pad
        for layer in self.encoder:
            x = layer(x, bias)
        return self.enc_norm(x)

    def decode(self, dec_ids, enc, src_mask):
        x = self.shared(dec_ids)
        t = dec_ids.shape[1]
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        self_bias = self.dec_bias(t, t, x.device).to(x.dtype)
        self_bias = self_bias.masked_fill(~causal, torch.finfo(x.dtype).min)
        cross_bias = (~src_mask)[:, None, None, :].to(x.dtype) * torch.finfo(x.dtype).min
        for layer in self.decoder:
            x = layer(x, enc, self_bias, cross_bias)
        return self.dec_norm(x)

    def forward(self, input_ids, src_lengths, labels, tgt_lengths):
        s = input_ids.shape[1]
        src_mask = torch.arange(s, device=input_ids.device)[None, :] < src_lengths[:, None]
        enc = self.encode(input_ids, src_mask)

        t = labels.shape[1]
        valid = torch.arange(t, device=labels.device)[None, :] < tgt_lengths[:, None]
        labels = labels.masked_fill(~valid, self.pad_id)
        dec_ids = torch.cat([labels.new_full((labels.shape[0], 1), self.pad_id), labels[:, :-1]], 1)
        dec = self.decode(dec_ids, enc, src_mask)
        logits = F.linear(dec * self.dim**-0.5, self.shared.weight)  # tied, rescaled as in T5

        nll = F.cross_entropy(logits.float().transpose(1, 2), labels, reduction="none")
        loss = (nll * valid).sum() / valid.sum().clamp_min(1)
        return loss, logits
