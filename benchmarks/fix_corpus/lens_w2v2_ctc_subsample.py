# spec: {"model": "lens_w2v2_ctc_subsample.py:Wav2Vec2LiteForCTC", "init": {"args": [16]}, "inputs": [{"tensor": [2, 1, 160]}, {"tensor": [2], "dtype": "int64", "data": [160, 120]}, {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 1, "high": 16}, {"tensor": [2], "dtype": "int64", "data": [6, 4]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class Wav2Vec2LiteForCTC(nn.Module):
    """A wav2vec2-style conv feature encoder (two strided convs) with a CTC head; the frame counts
    follow the conv arithmetic on the sample counts, computed on Python lists as in many recipes."""

    def __init__(self, vocab_size):
        super().__init__()
        self.feature_extractor = nn.Sequential(
            nn.Conv1d(1, 32, kernel_size=10, stride=5), nn.GELU(), nn.Conv1d(32, 32, kernel_size=4, stride=2), nn.GELU()
        )
        self.lm_head = nn.Linear(32, vocab_size)

    def forward(self, input_values, attention_lengths, labels, label_lengths):
        hidden = self.feature_extractor(input_values).transpose(1, 2)
        log_probs = self.lm_head(hidden).log_softmax(-1).transpose(0, 1)
        frame_lengths = [((n - 10) // 5 + 1 - 4) // 2 + 1 for n in attention_lengths.tolist()]
        return F.ctc_loss(
            log_probs, labels, input_lengths=frame_lengths, target_lengths=label_lengths.tolist(),
            blank=0, reduction="mean", zero_infinity=True,
        )
