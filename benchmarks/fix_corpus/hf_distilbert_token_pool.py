# spec: {"model": "hf_distilbert_token_pool.py:SentenceEncoder", "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 1, "high": 100}, {"tensor": [2, 12], "dtype": "int64", "data": [[1,1,1,1,1,1,1,1,1,0,0,0],[1,1,1,1,1,1,0,0,0,0,0,0]]}]}
import torch
from torch import nn
from transformers import DistilBertConfig, DistilBertModel


class SentenceEncoder(nn.Module):
    """Sentence embeddings from a tiny DistilBERT (random weights), mean over the real tokens of the batch."""

    def __init__(self):
        super().__init__()
        config = DistilBertConfig(vocab_size=100, dim=32, n_layers=1, n_heads=2, hidden_dim=64, max_position_embeddings=32)
        self.encoder = DistilBertModel(config)
        self.proj = nn.Linear(32, 16)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        tokens = hidden[attention_mask.bool()]
        lengths = attention_mask.sum(-1)
        pooled = torch.stack([chunk.mean(0) for chunk in tokens.split(lengths.tolist())])
        return self.proj(pooled)
