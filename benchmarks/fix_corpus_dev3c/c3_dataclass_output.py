# spec: {"model": "c3_dataclass_output.py:TinyClassifier", "init": {"args": [16, 3]}, "inputs": [{"tensor": [4, 16]}], "kwargs": {"labels": {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 3}}, "calls": 3}
from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn


@dataclass
class ClassifierOutput:
    logits: torch.Tensor
    loss: Optional[torch.Tensor] = None
    hidden_states: Optional[torch.Tensor] = None


class TinyClassifier(nn.Module):
    """Returns an HF-style dataclass output; the loss only when labels are given."""

    def __init__(self, dim, num_labels):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.classifier = nn.Linear(dim, num_labels)
        self.loss_fct = nn.CrossEntropyLoss()

    def forward(self, x, labels=None, output_hidden_states=False):
        hidden = self.encoder(x)
        logits = self.classifier(hidden)
        loss = None
        if labels is not None:
            loss = self.loss_fct(logits.view(-1, logits.size(-1)), labels.view(-1))
        return ClassifierOutput(
            logits=logits, loss=loss, hidden_states=hidden if output_hidden_states else None
        )
