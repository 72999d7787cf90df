# spec: {"model": "audio_trim_silence_where.py:TrimmedSpeakerEmbed", "init": {"args": [160, 24]}, "inputs": [{"tensor": [3200], "init": "randn"}]}
import torch
import torch.nn as nn


class TrimmedSpeakerEmbed(nn.Module):
    """librosa.effects.trim port: drop leading/trailing quiet frames, then embed the rest."""

    def __init__(self, frame_len, emb_dim, top_db=30.0):
        super().__init__()
        self.frame_len = frame_len
        self.top_db = top_db
        self.proj = nn.Linear(frame_len, emb_dim)

    def forward(self, wav):
        frames = wav.unfold(0, self.frame_len, self.frame_len)
        rms = frames.pow(2).mean(-1).sqrt()
        db = 20 * torch.log10(rms.clamp(min=1e-10) / rms.max())
        nonsilent = torch.where(db > -self.top_db)[0]
        start, end = nonsilent[0], nonsilent[-1] + 1
        voiced = frames[start:end]
        return self.proj(voiced).mean(0)
