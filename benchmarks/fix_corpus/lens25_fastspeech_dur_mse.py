# spec: {"model": "lens25_fastspeech_dur_mse.py:VariancePredictorLoss", "init": {"args": [16]}, "inputs": [{"tensor": [3, 9, 16]}, {"tensor": [3, 9]}, {"tensor": [3], "dtype": "int64", "data": [9, 6, 2]}]}
import torch
from torch import nn


class VariancePredictorLoss(nn.Module):
    """FastSpeech2 duration predictor and its loss (ming024 style): a conv stack predicts the
    log-durations, each utterance's MSE is the mean over its phonemes, the utterances' means
    averaged."""

    def __init__(self, dim):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.linear = nn.Linear(dim, 1)

    def forward(self, encoder_output, log_duration_target, src_lens):
        h = torch.relu(self.conv(encoder_output.transpose(1, 2))).transpose(1, 2)
        log_duration_pred = self.linear(h).squeeze(-1)
        total = 0.0
        batch = src_lens.shape[0]
        for idx in range(batch):
            src_len = src_lens[idx].item()
            diff = log_duration_pred[idx, :src_len] - log_duration_target[idx, :src_len]
            total = total + diff.pow(2).mean()
        return total / batch
