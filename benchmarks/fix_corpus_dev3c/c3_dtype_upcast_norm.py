# spec: {"model": "c3_dtype_upcast_norm.py:LlamaRMSNorm", "init": {"args": [16], "kwargs": {"eps": 1e-6}}, "inputs": [{"tensor": [2, 3, 16], "dtype": "bfloat16"}], "calls": 3}
import torch
from torch import nn


class LlamaRMSNorm(nn.Module):
    """HF Llama RMSNorm: upcasts to float32, casts back to the input dtype."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        if input_dtype != torch.float32:
            hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        out = self.weight * hidden_states
        if out.dtype != input_dtype:
            out = out.to(input_dtype)
        return out

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"
