# spec: {"model": "xt_nar_demask.py:MaskGITSampler", "init": {"args": [12, 16]}, "inputs": [{"tensor": [2, 8], "dtype": "int64", "init": "randint", "low": 0, "high": 12}]}
import math

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

# vendored from x-transformers 2.31.10 x_transformers/nonautoregressive_wrapper.py
# (the demasking loop of NonAutoregressiveWrapper.generate with the cosine schedule;
# the network is a stand-in bidirectional mixer)


def exists(val):
    return val is not None


def cosine_schedule(t):
    return torch.cos(t * math.pi * 0.5)


def log(t, eps=1e-10):
    return torch.log(t + eps)


def gumbel_noise(t):
    noise = torch.zeros_like(t).uniform_(0, 1)
    return -log(-log(noise))


class MaskGITSampler(nn.Module):
    def __init__(self, num_tokens, dim, steps=4):
        super().__init__()
        self.mask_id = num_tokens
        self.emb = nn.Embedding(num_tokens + 1, dim)
        self.mix = nn.Linear(dim, dim)
        self.to_logits = nn.Linear(dim, num_tokens)
        self.steps = steps
        self.schedule_fn = cosine_schedule

    def net(self, seq):
        h = self.emb(seq)
        h = h + self.mix(h.mean(dim=1, keepdim=True))
        return self.to_logits(torch.tanh(h))

    @torch.no_grad()
    def forward(self, prompt, temperature=1.0):
        batch_size, max_seq_len, device = *prompt.shape, prompt.device

        times = torch.linspace(0.0, 1.0, self.steps + 1, device=device)

        seq = torch.full(prompt.shape, self.mask_id, device=device)
        mask = torch.full(prompt.shape, True, device=device)

        # slowly demask

        all_mask_num_tokens = (self.schedule_fn(times[1:]) * max_seq_len).long()

        for mask_num_tokens, steps_until_x0 in zip(all_mask_num_tokens.tolist(), reversed(range(self.steps))):
            logits = self.net(seq)

            sample = logits.argmax(dim=-1)
            seq = torch.where(mask, sample, seq)

            if steps_until_x0 == 0:
                break

            scores = 1 - logits.softmax(dim=-1).amax(dim=-1)
            scores = scores + temperature * gumbel_noise(scores) * (steps_until_x0 / self.steps)

            mask_indices = scores.topk(mask_num_tokens, dim=-1).indices
            mask = torch.zeros_like(scores, dtype=torch.bool).scatter(1, mask_indices, True)
            seq = seq.masked_fill(mask, self.mask_id)

        return seq
