# spec: {"model": "hf_tiny_distilbert_trim_pad.py:TrimmedDistilBertClassifier", "inputs": [{"tensor": [3, 16], "dtype": "int64", "init": "randint", "low": 1, "high": 99}, {"tensor": [3, 16], "dtype": "int64", "data": [[1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0],[1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0],[1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0]]}]}
import torch
from torch import nn
from transformers import DistilBertConfig, DistilBertModel


class TrimmedDistilBertClassifier(nn.Module):
    """Sentence classifier on a tiny random DistilBERT; batches are trimmed to their longest row first."""

    def __init__(self, num_labels=3):
        super().__init__()
        config = DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64)
        self.encoder = DistilBertModel(config)
        self.classifier = nn.Linear(config.dim, num_labels)

    def forward(self, input_ids, attention_mask):
        max_len = attention_mask.sum(dim=1).max().item()
        input_ids = input_ids[:, :max_len]
        attention_mask = attention_mask[:, :max_len]
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return self.classifier(hidden[:, 0])
