# spec: {"model": "train_ckpt_sequential_encoder.py:DeepMLPEncoder", "init": {"args": [12, 4]}, "inputs": [{"tensor": [3, 12]}], "mode": "train"}
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential


class DeepMLPEncoder(nn.Module):
    """Memory-saving encoder: the deep stack runs under checkpoint_sequential in training."""

    def __init__(self, dim, depth, segments=2):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(dim, dim), nn.GELU()]
        self.stack = nn.Sequential(*layers)
        self.segments = segments
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        if self.training:
            h = checkpoint_sequential(self.stack, self.segments, x, use_reentrant=False)
        else:
            h = self.stack(x)
        return self.head(h)
