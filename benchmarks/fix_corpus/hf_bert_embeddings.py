# spec: {"model": "hf_bert_embeddings.py:BertEmbeddings", "inputs": [{"tensor": [2, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class BertEmbeddings(nn.Module):
    def __init__(self, vocab_size=50, hidden_size=16, max_position_embeddings=32, pad_token_id=0):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=pad_token_id)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.token_type_embeddings = nn.Embedding(2, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.pad_token_id = pad_token_id
        self.register_buffer(
            "position_ids", torch.arange(max_position_embeddings).expand((1, -1)), persistent=False
        )

    def warn_if_padding_and_no_attention_mask(self, input_ids):
        if self.pad_token_id in input_ids[:, [-1, 0]]:
            logger.warning("padding detected without an attention mask")

    def forward(self, input_ids):
        self.warn_if_padding_and_no_attention_mask(input_ids)
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        token_type_ids = torch.zeros_like(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.LayerNorm(embeddings)
