# spec: {"model": "lens25_tacotron_masked_l1.py:TacotronLoss", "init": {"args": [16]}, "inputs": [{"tensor": [3, 10, 16]}, {"tensor": [3, 10, 16]}, {"tensor": [3], "dtype": "int64", "data": [10, 6, 3]}]}
import torch
from torch import nn


class TacotronLoss(nn.Module):
    """Tacotron2 mel loss (NVIDIA/Coqui style): the postnet refines the decoder's frames, the L1 of
    each utterance is taken over its real frames only, one utterance at a time."""

    def __init__(self, n_mels):
        super().__init__()
        self.postnet = nn.Sequential(nn.Linear(n_mels, n_mels), nn.Tanh(), nn.Linear(n_mels, n_mels))

    def forward(self, mel_out, mel_target, output_lengths):
        mel_post = mel_out + self.postnet(mel_out)
        loss = mel_out.new_zeros(())
        for i in range(mel_out.size(0)):
            olen = int(output_lengths[i])
            loss = loss + (mel_post[i, :olen] - mel_target[i, :olen]).abs().sum()
        return loss / (output_lengths.sum() * mel_out.size(2))
