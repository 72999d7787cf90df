# spec: {"model": "mlm_roberta_head_masked_tokens.py:RobertaMLM", "init": {"args": [40, 16]}, "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 40}, {"tensor": [2, 12], "dtype": "bool", "p": 0.3}]}
import torch
import torch.nn.functional as F
from torch import nn


class LMHead(nn.Module):
    """fairseq RobertaLMHead style: an output projection tied to the embedding weight plus its
    own bias; the caller selects the masked tokens before the head."""

    def __init__(self, embed_dim, weight):
        super().__init__()
        self.dense = nn.Linear(embed_dim, embed_dim)
        self.layer_norm = nn.LayerNorm(embed_dim)
        self.weight = weight
        self.bias = nn.Parameter(torch.zeros(weight.size(0)))

    def forward(self, features):
        x = self.dense(features)
        x = F.gelu(x)
        x = self.layer_norm(x)
        x = F.linear(x, self.weight) + self.bias
        return x


class RobertaMLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
        self.lm_head = LMHead(dim, self.embed.weight)

    def forward(self, src_tokens, masked_tokens):
        x = self.encoder(self.embed(src_tokens.masked_fill(masked_tokens, 1)))
        logits = self.lm_head(x[masked_tokens, :])
        targets = src_tokens[masked_tokens]
        return F.cross_entropy(logits, targets)
