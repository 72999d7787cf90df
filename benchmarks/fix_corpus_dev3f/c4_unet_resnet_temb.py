# spec: {"model": "c4_unet_resnet_temb.py:ResnetBlock2D", "init": {"kwargs": {"in_channels": 8, "out_channels": 16, "temb_channels": 32, "groups": 4}}, "inputs": [{"tensor": [2, 8, 8, 8]}, {"tensor": [2, 32]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class ResnetBlock2D(nn.Module):
    """diffusers' ``ResnetBlock2D``: time embedding projected and added per channel, an optional
    1x1 shortcut when the channel count changes, ``output_scale_factor`` from the config."""

    def __init__(
        self,
        *,
        in_channels,
        out_channels=None,
        temb_channels=512,
        groups=32,
        eps=1e-6,
        time_embedding_norm="default",
        output_scale_factor=1.0,
        use_in_shortcut=None,
    ):
        super().__init__()
        out_channels = in_channels if out_channels is None else out_channels
        self.time_embedding_norm = time_embedding_norm
        self.output_scale_factor = output_scale_factor
        self.norm1 = nn.GroupNorm(groups, in_channels, eps=eps)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        if temb_channels is not None:
            if self.time_embedding_norm == "default":
                self.time_emb_proj = nn.Linear(temb_channels, out_channels)
            elif self.time_embedding_norm == "scale_shift":
                self.time_emb_proj = nn.Linear(temb_channels, 2 * out_channels)
            else:
                raise ValueError(f"unknown time_embedding_norm : {self.time_embedding_norm} ")
        else:
            self.time_emb_proj = None
        self.norm2 = nn.GroupNorm(groups, out_channels, eps=eps)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.nonlinearity = nn.SiLU()
        self.use_in_shortcut = in_channels != out_channels if use_in_shortcut is None else use_in_shortcut
        self.conv_shortcut = None
        if self.use_in_shortcut:
            self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1)

    def forward(self, input_tensor, temb):
        hidden_states = self.nonlinearity(self.norm1(input_tensor))
        hidden_states = self.conv1(hidden_states)
        if self.time_emb_proj is not None:
            temb = self.time_emb_proj(self.nonlinearity(temb))[:, :, None, None]
        if self.time_embedding_norm == "default":
            if temb is not None:
                hidden_states = hidden_states + temb
            hidden_states = self.norm2(hidden_states)
        elif self.time_embedding_norm == "scale_shift":
            scale, shift = torch.chunk(temb, 2, dim=1)
            hidden_states = self.norm2(hidden_states) * (1 + scale) + shift
        hidden_states = self.conv2(self.nonlinearity(hidden_states))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return (input_tensor + hidden_states) / self.output_scale_factor
