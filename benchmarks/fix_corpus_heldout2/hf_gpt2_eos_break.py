# spec: {"model": "hf_gpt2_eos_break.py:GreedyGenerator", "inputs": [{"tensor": [2, 5], "dtype": "int64", "init": "randint", "low": 1, "high": 64}]}
import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel


class GreedyGenerator(nn.Module):
    """Greedy decoding with a tiny GPT-2 (random weights) that stops once every sequence has emitted EOS."""

    def __init__(self, max_new_tokens=4, eos_token_id=0):
        super().__init__()
        config = GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2)
        self.lm = GPT2LMHeadModel(config)
        self.max_new_tokens = max_new_tokens
        self.eos_token_id = eos_token_id

    def forward(self, input_ids):
        finished = torch.zeros(input_ids.shape[0], dtype=torch.bool)
        for _ in range(self.max_new_tokens):
            logits = self.lm(input_ids).logits[:, -1]
            next_tok = logits.argmax(-1)
            next_tok = torch.where(finished, self.eos_token_id, next_tok)
            input_ids = torch.cat([input_ids, next_tok[:, None]], dim=1)
            finished |= next_tok == self.eos_token_id
            if finished.all():
                break
        return input_ids
