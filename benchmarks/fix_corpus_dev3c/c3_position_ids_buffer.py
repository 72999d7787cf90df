# spec: {"model": "c3_position_ids_buffer.py:Embeddings", "init": {"args": [40, 16], "kwargs": {"max_position_embeddings": 32}}, "inputs": [{"tensor": [2, 9], "dtype": "int64", "init": "randint", "low": 0, "high": 40}], "calls": 3}
import torch
from torch import nn


class Embeddings(nn.Module):
    """BERT embeddings: position ids sliced from a buffer by the input's length."""

    def __init__(self, vocab_size, hidden_size, max_position_embeddings=512, type_vocab_size=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_position_embeddings).expand((1, -1)), persistent=False)
        self.register_buffer("token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long), persistent=False)

    def forward(self, input_ids=None, token_type_ids=None, position_ids=None, past_key_values_length=0):
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        if position_ids is None:
            position_ids = self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]
        if token_type_ids is None:
            token_type_ids = self.token_type_ids[:, :seq_length].expand(input_shape[0], seq_length)
        emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        emb = emb + self.position_embeddings(position_ids)
        return self.LayerNorm(emb)
