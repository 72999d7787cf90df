# spec: {"model": "speech_energy_vad_segments.py:VADSegmentEncoder", "init": {"args": [160]}, "inputs": [{"tensor": [1, 3200]}]}
import torch
from torch import nn


def frame_energy(wav, frame_len):
    frames = wav.unfold(-1, frame_len, frame_len)
    return 10 * torch.log10(frames.pow(2).mean(-1) + 1e-10)


class VADSegmentEncoder(nn.Module):
    """Energy-based voice activity detection that cuts speech segments and encodes each (Kaldi-recipe habit)."""

    def __init__(self, frame_len, threshold_db=-3.0, min_frames=2):
        super().__init__()
        self.frame_len = frame_len
        self.threshold_db = threshold_db
        self.min_frames = min_frames
        self.encoder = nn.Linear(frame_len, 32)

    def forward(self, wav):
        energy = frame_energy(wav[0], self.frame_len)
        voiced = energy > energy.max() + self.threshold_db * 4
        segments = []
        start = None
        for t, v in enumerate(voiced.tolist()):
            if v and start is None:
                start = t
            elif not v and start is not None:
                if t - start >= self.min_frames:
                    segments.append((start, t))
                start = None
        if start is not None:
            segments.append((start, len(voiced)))
        frames = wav[0].unfold(-1, self.frame_len, self.frame_len)
        embs = [self.encoder(frames[s:e]).mean(0) for s, e in segments]
        if not embs:
            return torch.zeros(1, 32)
        return torch.stack(embs)
