# spec: {"model": "hf_pooler.py:Pooler", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}]}
import torch
from torch import nn


class Pooler(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        first_token_tensor = hidden_states[:, 0]
        pooled_output = self.dense(first_token_tensor)
        pooled_output = self.activation(pooled_output)
        if pooled_output.abs().max() > 100:
            pooled_output = pooled_output / 100
        return pooled_output
