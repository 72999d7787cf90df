# spec: {"model": "lp_utt_l1_enumerate_lengths.py:MelDecoderLoss", "init": {"args": [16, 10]}, "inputs": [{"tensor": [3, 20, 16]}, {"tensor": [3, 20, 10]}, {"tensor": [3], "dtype": "int64", "data": [20, 14, 9]}]}
import torch
import torch.nn.functional as F
from torch import nn


class MelDecoderLoss(nn.Module):
    """TTS mel-spectrogram decoder (Tacotron/FastSpeech training step): an L1 loss per utterance
    over its valid frames, lengths walked with enumerate(lengths.tolist())."""

    def __init__(self, d_model, n_mels):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(d_model, d_model), nn.ReLU(), nn.Linear(d_model, n_mels))

    def forward(self, hidden, mel_target, mel_lengths):
        mel_pred = self.proj(hidden)
        losses = []
        for b, n in enumerate(mel_lengths.tolist()):
            losses.append(F.l1_loss(mel_pred[b, :n], mel_target[b, :n]))
        return torch.stack(losses).mean()
