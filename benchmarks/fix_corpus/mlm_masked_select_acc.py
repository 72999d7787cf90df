# spec: {"model": "mlm_masked_select_acc.py:MaskedLMHead", "init": {"args": [40, 16]}, "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 40}, {"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": -1, "high": 40}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedLMHead(nn.Module):
    """BERT-pretraining style MLM: loss and accuracy computed on the masked positions only."""

    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, 2, 32, batch_first=True, dropout=0.0)
        self.decoder = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, mlm_labels):
        hidden = self.encoder(self.embed(input_ids))
        logits = self.decoder(hidden)
        masked = mlm_labels >= 0
        masked_labels = torch.masked_select(mlm_labels, masked)
        masked_logits = logits[masked]
        loss = F.cross_entropy(masked_logits, masked_labels)
        acc = (masked_logits.argmax(-1) == masked_labels).float().mean()
        return loss, acc
