# spec: {"model": "pl_classifier.py:LitClassifier", "inputs": [{"tensor": [4, 1, 8, 8]}]}
import torch
import torch.nn.functional as F
from torch import nn


class LitClassifier(nn.Module):
    """The network of a LightningModule example (the trainer hooks left out)."""

    def __init__(self, hidden_dim=32, num_classes=10):
        super().__init__()
        self.l1 = nn.Linear(64, hidden_dim)
        self.l2 = nn.Linear(hidden_dim, num_classes)
        self.step_count = 0

    def forward(self, x):
        x = x.view(x.size(0), -1)
        x = torch.relu(self.l1(x))
        self.step_count += 1
        logits = self.l2(x)
        print(f"step {self.step_count}: logits mean {logits.mean():.3f}")
        return F.log_softmax(logits, dim=1)
