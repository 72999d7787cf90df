import torch
from torch import nn


class Nucleus(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Linear(16, 32)

    def forward(self, h: torch.Tensor, top_p: float = 0.9, strategy: str = "sample"):
        logits = self.head(h)
        probs = torch.softmax(logits, -1)
        if strategy == "greedy":
            return probs.argmax(-1)
        if top_p < 1.0:
            sp, idx = probs.sort(-1, descending=True)
            keep = sp.cumsum(-1) <= top_p
            probs = torch.zeros_like(probs).scatter(-1, idx, sp * keep)
        return probs
