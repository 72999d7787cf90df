# spec: {"model": "reformer_deterministic_rng.py:ReversibleFeedForward", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "mode": "train"}
import torch
import torch.nn as nn
from torch.utils.checkpoint import get_device_states, set_device_states


# vendored from reformer-pytorch 1.4.4 reformer_pytorch/reversible.py
# following example for saving and setting rng here https://pytorch.org/docs/stable/_modules/torch/utils/checkpoint.html
class Deterministic(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.cpu_state = None
        self.cuda_in_fwd = None
        self.gpu_devices = None
        self.gpu_states = None

    def record_rng(self, *args):
        self.cpu_state = torch.get_rng_state()
        if torch.cuda._initialized:
            self.cuda_in_fwd = True
            self.gpu_devices, self.gpu_states = get_device_states(*args)

    def forward(self, *args, record_rng = False, set_rng = False, **kwargs):
        if record_rng:
            self.record_rng(*args)

        if not set_rng:
            return self.net(*args, **kwargs)

        rng_devices = []
        if self.cuda_in_fwd:
            rng_devices = self.gpu_devices

        with torch.random.fork_rng(devices=rng_devices, enabled=True):
            torch.set_rng_state(self.cpu_state)
            if self.cuda_in_fwd:
                set_device_states(self.gpu_devices, self.gpu_states)
            return self.net(*args, **kwargs)


class ReversibleBlock(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f = Deterministic(f)
        self.g = Deterministic(g)

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=2)
        with torch.no_grad():
            y1 = x1 + self.f(x2, record_rng=self.training)
            y2 = x2 + self.g(y1, record_rng=self.training)
        return torch.cat([y1, y2], dim=2)


class ReversibleFeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        half = dim // 2
        self.block = ReversibleBlock(
            nn.Sequential(nn.LayerNorm(half), nn.Linear(half, half), nn.Dropout(0.1)),
            nn.Sequential(nn.LayerNorm(half), nn.Linear(half, half), nn.GELU()),
        )

    def forward(self, x):
        return self.block(x)
