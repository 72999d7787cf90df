# spec: {"model": "lat_generate_eos.py:LinearAttentionGenerator", "init": {"args": [16, 16]}, "inputs": [{"tensor": [2, 3], "dtype": "int64", "init": "randint", "low": 1, "high": 16}]}
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

# vendored from linear-attention-transformer 0.19.1 linear_attention_transformer/autoregressive_wrapper.py
# (top_k and AutoregressiveWrapper.generate with eos early stop; the LM is a stand-in causal
# linear-attention layer with a key padding mask)


def top_k(logits, thres=0.9):
    k = int((1 - thres) * logits.shape[-1])
    val, ind = torch.topk(logits, k)
    probs = torch.full_like(logits, float("-inf"))
    probs.scatter_(1, ind, val)
    return probs


class CausalLinearLM(nn.Module):
    def __init__(self, num_tokens, dim, max_seq_len=16):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.emb = nn.Embedding(num_tokens, dim)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, input_mask=None):
        q, k, v = self.to_qkv(self.emb(x)).chunk(3, dim=-1)
        q, k = q.softmax(dim=-1), k.softmax(dim=-2)
        if input_mask is not None:
            k = k.masked_fill(~input_mask[..., None], 0.0)
        context = torch.einsum("bnd,bne->bnde", k, v).cumsum(dim=1)
        out = torch.einsum("bnd,bnde->bne", q, context)
        return self.to_logits(out)


class LinearAttentionGenerator(nn.Module):
    def __init__(self, num_tokens, dim, seq_len=5, eos_token=0):
        super().__init__()
        self.net = CausalLinearLM(num_tokens, dim)
        self.max_seq_len = self.net.max_seq_len
        self.seq_len = seq_len
        self.eos_token = eos_token

    @torch.no_grad()
    def forward(self, start_tokens, temperature=1.0, filter_logits_fn=top_k, filter_thres=0.9, **kwargs):
        eos_token, seq_len = self.eos_token, self.seq_len
        b, t = start_tokens.shape

        out = start_tokens
        input_mask = kwargs.pop("input_mask", None)

        if input_mask is None:
            input_mask = torch.full_like(out, True, dtype=torch.bool, device=out.device)

        for _ in range(seq_len):
            x = out[:, -self.max_seq_len :]
            input_mask = input_mask[:, -self.max_seq_len :]

            logits = self.net(x, input_mask=input_mask, **kwargs)[:, -1, :]
            filtered_logits = filter_logits_fn(logits, thres=filter_thres)
            probs = F.softmax(filtered_logits / temperature, dim=-1)
            sample = torch.multinomial(probs, 1)

            out = torch.cat((out, sample), dim=-1)
            input_mask = F.pad(input_mask, (0, 1), value=True)

            if eos_token is not None and (sample == eos_token).all():
                break

        return out[:, t:]
