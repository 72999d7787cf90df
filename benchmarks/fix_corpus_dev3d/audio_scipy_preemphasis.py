# spec: {"model": "audio_scipy_preemphasis.py:PreemphasisFrontend", "init": {"args": [64, 16]}, "inputs": [{"tensor": [2, 256], "init": "randn"}]}
import scipy.signal
import torch
from torch import nn


class PreemphasisFrontend(nn.Module):
    """Speech front end (Tacotron/ESPnet preprocessing style): pre-emphasis with scipy's IIR
    filter on the raw waveform, then framing and a learned projection."""

    def __init__(self, frame, out_dim, coef=0.97):
        super().__init__()
        self.frame = frame
        self.coef = coef
        self.proj = nn.Linear(frame, out_dim)

    def preemphasis(self, wav):
        emph = scipy.signal.lfilter([1.0, -self.coef], [1.0], wav.detach().cpu().numpy(), axis=-1)
        return torch.from_numpy(emph).to(wav.dtype)

    def forward(self, wav):
        wav = self.preemphasis(wav)
        frames = wav.unfold(-1, self.frame, self.frame // 2)
        return self.proj(frames).tanh()
