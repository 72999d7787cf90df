import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2)
        if attention_mask is not None:
            scores = scores + attention_mask
        return scores.softmax(-1) @ v


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([SelfAttention(8) for _ in range(3)])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for idx, layer in enumerate(self.layers):
            if idx == 0:
                x = x + layer(x, attention_mask=mask)
            else:
                x = x + layer(x)
            print("layer", idx)
        return x
