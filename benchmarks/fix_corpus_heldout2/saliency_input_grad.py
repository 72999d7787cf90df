# spec: {"model": "saliency_input_grad.py:SaliencyClassifier", "inputs": [{"tensor": [2, 3, 16, 16]}]}
import torch
from torch import nn


class SaliencyClassifier(nn.Module):
    """A CNN that also returns vanilla-gradient saliency maps for its top class (explainability demo)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, 5)

    def forward(self, images):
        with torch.enable_grad():
            images = images.detach().requires_grad_(True)
            logits = self.fc(self.features(images).flatten(1))
            top = logits.max(dim=1).values.sum()
            (grad,) = torch.autograd.grad(top, images)
        saliency = grad.abs().amax(dim=1)
        return logits.detach(), saliency
