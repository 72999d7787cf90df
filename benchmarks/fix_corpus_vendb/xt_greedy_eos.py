# spec: {"model": "xt_greedy_eos.py:TinyDecoderLM", "init": {"args": [16, 24]}, "inputs": [{"tensor": [2, 4], "dtype": "int64", "init": "randint", "low": 1, "high": 16}]}
import torch
import torch.nn.functional as F
from torch import nn

# vendored from x-transformers 2.31.10 x_transformers/autoregressive_wrapper.py
# (AutoregressiveWrapper.generate: greedy decoding that stops once every row emitted eos
# and masks what follows; the decoder is a stand-in causal-mean LM)


def exists(val):
    return val is not None


def identity(t, *args, **kwargs):
    return t


class TinyDecoderLM(nn.Module):
    def __init__(self, num_tokens, dim, eos_token=0, max_new=6):
        super().__init__()
        self.emb = nn.Embedding(num_tokens, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, num_tokens)
        self.eos_token = eos_token
        self.max_new = max_new
        self.pad_value = 0

    def net(self, x):
        h = self.emb(x)
        steps = torch.arange(1, h.shape[1] + 1, device=h.device).view(1, -1, 1)
        h = torch.tanh(self.mix(h.cumsum(dim=1) / steps))
        return self.head(h)

    @torch.no_grad()
    def forward(self, prompts, temperature=0.0):
        out = prompts
        eos_token = self.eos_token

        for _ in range(self.max_new):
            logits = self.net(out)[:, -1]
            sample = logits.argmax(dim=-1, keepdim=True)
            out = torch.cat((out, sample), dim=-1)

            if not exists(eos_token):
                continue

            is_eos_tokens = out == eos_token

            if is_eos_tokens.any(dim=-1).all():
                break

        if exists(eos_token):
            # mask out everything after the eos tokens
            shifted_is_eos_tokens = F.pad(is_eos_tokens, (1, -1))
            mask = shifted_is_eos_tokens.float().cumsum(dim=-1) >= 1
            out = out.masked_fill(mask, self.pad_value)

        return out[:, prompts.shape[-1]:]
