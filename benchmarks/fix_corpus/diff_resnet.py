# spec: {"model": "diff_resnet.py:ResnetBlock2D", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2, 8]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetBlock2D(nn.Module):
    def __init__(self, channels, groups=4, output_scale_factor=1.0):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.time_emb_proj = nn.Linear(channels, channels)
        self.norm2 = nn.GroupNorm(groups, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.output_scale_factor = output_scale_factor

    def forward(self, input_tensor, temb):
        hidden_states = self.conv1(F.silu(self.norm1(input_tensor)))
        temb = self.time_emb_proj(F.silu(temb))[:, :, None, None]
        hidden_states = hidden_states + temb
        hidden_states = self.conv2(F.silu(self.norm2(hidden_states)))
        scale = float(self.output_scale_factor)
        out = (input_tensor + hidden_states) / scale
        peak = out.abs().amax().item()
        return out / max(peak, 1.0)
