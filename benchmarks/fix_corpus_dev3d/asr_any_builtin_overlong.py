# spec: {"model": "asr_any_builtin_overlong.py:ConformerFrontend", "init": {"args": [8, 16]}, "inputs": [{"tensor": [3, 10, 8]}, {"tensor": [3], "dtype": "int64", "data": [10, 7, 9]}]}
from torch import nn


class ConformerFrontend(nn.Module):
    """Speech encoder front end that truncates utterances longer than a maximum when any of the
    batch's lengths exceeds it (Python's any over a tensor)."""

    def __init__(self, n_mels, dim, max_frames=8):
        super().__init__()
        self.proj = nn.Linear(n_mels, dim)
        self.max_frames = max_frames

    def forward(self, feats, lengths):
        if any(lengths > self.max_frames):
            feats = feats[:, : self.max_frames]
            lengths = lengths.clamp(max=self.max_frames)
        return self.proj(feats).mean(1), lengths
