# spec: {"model": "hook_capture_features_lambda.py:FeatureTap", "init": {"args": [8, 3]}, "inputs": [{"tensor": [4, 8]}]}
from torch import nn


class FeatureTap(nn.Module):
    """Grad-CAM-like feature capture: a forward hook is registered on the body for one call and
    removed afterwards."""

    def __init__(self, dim, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.head = nn.Linear(dim, classes)
        self.captured = []

    def forward(self, x):
        handle = self.body.register_forward_hook(lambda m, inp, out: self.captured.append(out))
        logits = self.head(self.body(x))
        handle.remove()
        feats = self.captured.pop()
        return logits, feats.mean(0)
