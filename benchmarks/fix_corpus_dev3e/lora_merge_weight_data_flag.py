# spec: {"model": "lora_merge_weight_data_flag.py:LoraLinear", "init": {"args": [8, 8, 4]}, "inputs": [{"tensor": [4, 8]}], "eval": true}
import torch
from torch import nn


class LoraLinear(nn.Module):
    """loralib-style Linear: in eval the low-rank update is merged into the frozen weight once
    (`weight.data +=`), unmerged again when training resumes."""

    def __init__(self, fin, fout, r, alpha=8):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(fout, fin) * 0.1, requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(fout))
        self.lora_A = nn.Parameter(torch.randn(r, fin) * 0.01)
        self.lora_B = nn.Parameter(torch.randn(fout, r) * 0.01)
        self.scaling = alpha / r
        self.merged = False

    def forward(self, x):
        if not self.training and not self.merged:
            self.weight.data += (self.lora_B @ self.lora_A) * self.scaling
            self.merged = True
        out = nn.functional.linear(x, self.weight, self.bias)
        if not self.merged:
            out = out + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling
        return out
