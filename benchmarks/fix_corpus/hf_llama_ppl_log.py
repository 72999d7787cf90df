# spec: {"model": "hf_llama_ppl_log.py:TinyLlamaLM", "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 128}]}
import math

import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM


class TinyLlamaLM(nn.Module):
    """A 2-layer Llama built from a config (random weights) that returns loss and logs perplexity."""

    def __init__(self):
        super().__init__()
        cfg = LlamaConfig(
            vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        )
        self.lm = LlamaForCausalLM(cfg)
        self.last_ppl = None

    def forward(self, input_ids):
        out = self.lm(input_ids=input_ids, labels=input_ids)
        self.last_ppl = math.exp(out.loss.item())
        return out.loss, out.logits
