# spec: {"model": "misc_while.py:Refiner", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Linear(8, 8)

    def forward(self, x):
        it = 0
        while x.norm() > 1.0 and it < 5:
            x = 0.5 * torch.tanh(self.step(x))
            it += 1
        return x
