# spec: {"model": "return_dict_flag_kwarg.py:FeatureExtractor", "init": {"args": [3, 8]}, "inputs": [{"tensor": [2, 3, 16, 16]}], "kwargs": {"output_hidden_states": false}, "variants": [{"inputs": [{"tensor": [2, 3, 16, 16]}], "kwargs": {"output_hidden_states": true}}, {"inputs": [{"tensor": [2, 3, 16, 16]}], "kwargs": {"output_hidden_states": true, "return_dict": false}}]}
import torch
from torch import nn


class FeatureExtractor(nn.Module):
    """HF-style backbone with output_hidden_states / return_dict switches chosen by the caller."""

    def __init__(self, in_ch, width):
        super().__init__()
        self.stages = nn.ModuleList([nn.Conv2d(in_ch, width, 3, 2, 1), nn.Conv2d(width, width * 2, 3, 2, 1), nn.Conv2d(width * 2, width * 4, 3, 2, 1)])

    def forward(self, pixel_values, output_hidden_states=False, return_dict=True):
        hidden_states = () if output_hidden_states else None
        x = pixel_values
        for stage in self.stages:
            x = torch.relu(stage(x))
            if output_hidden_states:
                hidden_states = hidden_states + (x,)
        pooled = x.mean((2, 3))
        if not return_dict:
            return tuple(v for v in (x, pooled, hidden_states) if v is not None)
        return {"last_hidden_state": x, "pooler_output": pooled, "hidden_states": hidden_states}
