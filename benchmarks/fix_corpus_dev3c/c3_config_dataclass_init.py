# spec: {"model": "c3_config_dataclass_init.py:build_model", "inputs": [{"tensor": [2, 5, 16]}], "calls": 3}
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class MixerConfig:
    hidden_size: int = 16
    num_patches: int = 5
    expansion: float = 2.0
    layer_norm_eps: float = 1e-5
    use_token_mixing: bool = True


class MixerBlock(nn.Module):
    """MLP-Mixer block reading its sizes from a config object."""

    def __init__(self, config: MixerConfig):
        super().__init__()
        self.config = config
        tok_hidden = int(config.num_patches * config.expansion)
        ch_hidden = int(config.hidden_size * config.expansion)
        self.norm1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.token_mlp = nn.Sequential(nn.Linear(config.num_patches, tok_hidden), nn.GELU(), nn.Linear(tok_hidden, config.num_patches))
        self.norm2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.channel_mlp = nn.Sequential(nn.Linear(config.hidden_size, ch_hidden), nn.GELU(), nn.Linear(ch_hidden, config.hidden_size))

    def forward(self, x):
        if self.config.use_token_mixing:
            x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


def build_model():
    torch.manual_seed(0)
    return MixerBlock(MixerConfig())
