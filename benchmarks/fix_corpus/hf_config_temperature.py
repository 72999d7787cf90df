# spec: {"model": "hf_config_temperature.py:CalibratedClassifier", "inputs": [{"tensor": [4, 16]}]}
import torch
from torch import nn


class CalibConfig:
    def __init__(self, hidden_size=16, num_labels=3, temperature=1.5):
        self.hidden_size = hidden_size
        self.num_labels = num_labels
        self.temperature = temperature


class CalibratedClassifier(nn.Module):
    """transformers-style head: the softmax temperature comes from the config and the logit spread."""

    def __init__(self, config=None):
        super().__init__()
        config = config or CalibConfig()
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.temperature = config.temperature

    def forward(self, hidden_states):
        logits = self.classifier(hidden_states)
        spread = logits.std().item()
        return (logits / (spread / self.temperature + 1.0)).softmax(-1)
