# spec: {"model": "shp_fairseq_masked_lm_nll.py:MaskedLmCriterion", "init": {"args": [30, 16]}, "inputs": [{"tensor": [2, 10], "dtype": "int64", "init": "randint", "low": 2, "high": 30}, {"tensor": [2, 10], "dtype": "int64", "data": [[1, 1, 7, 1, 1, 12, 1, 1, 1, 4], [1, 9, 1, 1, 1, 1, 22, 1, 3, 1]]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedLmCriterion(nn.Module):
    """fairseq ``masked_lm`` criterion: the LM head runs on the masked tokens only and the loss is
    the NLL summed over them, divided by the sample size (the number of masked tokens)."""

    def __init__(self, vocab_size, embed_dim, padding_idx=1):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.layer = nn.TransformerEncoderLayer(embed_dim, 2, 32, dropout=0.0, batch_first=True)
        self.lm_head = nn.Linear(embed_dim, vocab_size)

    def forward(self, src_tokens, target):
        masked_tokens = target.ne(self.padding_idx)
        sample_size = masked_tokens.int().sum()
        features = self.layer(self.embed_tokens(src_tokens))
        logits = self.lm_head(features[masked_tokens])
        targets = target[masked_tokens]
        loss = F.nll_loss(
            F.log_softmax(logits.view(-1, logits.size(-1)), dim=-1, dtype=torch.float32),
            targets.view(-1),
            reduction="sum",
            ignore_index=self.padding_idx,
        )
        return loss / sample_size
