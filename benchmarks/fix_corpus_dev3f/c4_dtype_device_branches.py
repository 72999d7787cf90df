# spec: {"model": "c4_dtype_device_branches.py:T5LayerFF", "init": {"args": [16, 32]}, "inputs": [{"tensor": [2, 5, 16], "dtype": "bfloat16"}], "calls": 3}
import torch
from torch import nn


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        if self.weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(self.weight.dtype)
        return self.weight * hidden_states


class T5LayerFF(nn.Module):
    """HF T5's feed-forward: the ``wo`` weight's dtype tested against the hidden states'
    (``isinstance(self.wo.weight, torch.Tensor)``, ``!= self.wo.weight.dtype``,
    ``!= torch.int8``), an fp16 clamp branch on ``hidden_states.dtype``, and a device-type
    branch for autocast."""

    def __init__(self, d_model, d_ff, dropout_rate=0.1):
        super().__init__()
        self.wi = nn.Linear(d_model, d_ff, bias=False).to(torch.bfloat16)
        self.wo = nn.Linear(d_ff, d_model, bias=False)
        self.act = nn.ReLU()
        self.dropout = nn.Dropout(dropout_rate)
        self.layer_norm = T5LayerNorm(d_model)

    def forward(self, hidden_states):
        forwarded_states = self.layer_norm(hidden_states.float())
        device_type = hidden_states.device.type if hidden_states.device.type != "mps" else "cpu"
        with torch.autocast(device_type=device_type, enabled=False):
            h = self.wi(forwarded_states.to(self.wi.weight.dtype))
        h = self.dropout(self.act(h))
        if (
            isinstance(self.wo.weight, torch.Tensor)
            and h.dtype != self.wo.weight.dtype
            and self.wo.weight.dtype != torch.int8
        ):
            h = h.to(self.wo.weight.dtype)
        out = self.wo(h)
        if out.dtype == torch.float16:
            clamp_value = torch.finfo(out.dtype).max - 1000
            out = torch.clamp(out, min=-clamp_value, max=clamp_value)
        if not hidden_states.is_floating_point():
            raise TypeError("hidden states must be floating point")
        return hidden_states.float() + self.dropout(out)
