# spec: {"model": "hf_gpt2_tiny_sliding_ppl.py:SlidingWindowPerplexity", "init": {"args": []}, "inputs": [{"tensor": [1, 40], "dtype": "int64", "init": "randint", "low": 0, "high": 100}]}
import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel


class SlidingWindowPerplexity(nn.Module):
    """Strided sliding-window perplexity of a tiny random GPT-2 (the transformers perplexity guide's loop)."""

    def __init__(self, max_length=16, stride=8):
        super().__init__()
        torch.manual_seed(0)
        cfg = GPT2Config(vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2)
        self.model = GPT2LMHeadModel(cfg)
        self.max_length = max_length
        self.stride = stride

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        nlls = []
        prev_end_loc = 0
        for begin_loc in range(0, seq_len, self.stride):
            end_loc = min(begin_loc + self.max_length, seq_len)
            trg_len = end_loc - prev_end_loc
            ids = input_ids[:, begin_loc:end_loc]
            target_ids = ids.clone()
            target_ids[:, :-trg_len] = -100
            outputs = self.model(ids, labels=target_ids)
            nlls.append(outputs.loss)
            prev_end_loc = end_loc
            if end_loc == seq_len:
                break
        return torch.exp(torch.stack(nlls).mean())
