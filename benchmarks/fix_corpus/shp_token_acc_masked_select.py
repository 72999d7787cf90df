# spec: {"model": "shp_token_acc_masked_select.py:Seq2SeqTokenMetrics", "init": {"args": [24, 16]}, "inputs": [{"tensor": [3, 7], "dtype": "int64", "init": "randint", "low": 1, "high": 24}, {"tensor": [3, 7], "dtype": "int64", "data": [[5, 9, 2, 0, 0, 0, 0], [7, 7, 1, 3, 11, 0, 0], [4, 0, 0, 0, 0, 0, 0]]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2SeqTokenMetrics(nn.Module):
    """NMT training step (OpenNMT-style statistics): label-smoothed loss over the non-pad tokens and
    the token accuracy from ``masked_select``, the number of target words from its ``numel()``."""

    def __init__(self, vocab_size, hidden, pad_idx=0, label_smoothing=0.1):
        super().__init__()
        self.pad_idx = pad_idx
        self.label_smoothing = label_smoothing
        self.embed = nn.Embedding(vocab_size, hidden)
        self.decoder = nn.TransformerEncoderLayer(hidden, 2, 32, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(hidden, vocab_size)

    def forward(self, tgt_in, tgt_out):
        dec = self.decoder(self.embed(tgt_in), is_causal=True, src_mask=nn.Transformer.generate_square_subsequent_mask(tgt_in.shape[1]))
        scores = self.generator(dec)
        loss = F.cross_entropy(
            scores.transpose(1, 2), tgt_out, ignore_index=self.pad_idx, label_smoothing=self.label_smoothing, reduction="sum"
        )
        non_padding = tgt_out.ne(self.pad_idx)
        pred = scores.argmax(-1)
        num_correct = pred.eq(tgt_out).masked_select(non_padding).sum()
        num_non_padding = tgt_out.masked_select(non_padding).numel()
        n_words = max(num_non_padding, 1)
        return loss / n_words, num_correct.float() / n_words
