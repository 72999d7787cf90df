# spec: {"model": "multimodal_missing_audio_none.py:LateFusionClassifier", "init": {"args": [12, 10, 3]}, "inputs": [{"dict": {"video": {"tensor": [2, 12]}, "audio": {"tensor": [2, 10]}}}], "variants": [{"inputs": [{"dict": {"video": {"tensor": [2, 12]}, "audio": null}}]}, {"inputs": [{"dict": {"video": {"tensor": [2, 12]}}}]}]}
import torch
from torch import nn


class LateFusionClassifier(nn.Module):
    """Audio-visual late fusion where some clips arrive without an audio track."""

    def __init__(self, video_dim, audio_dim, n_cls):
        super().__init__()
        self.video = nn.Linear(video_dim, 16)
        self.audio = nn.Linear(audio_dim, 16)
        self.missing_audio = nn.Parameter(torch.zeros(16))
        self.head = nn.Linear(32, n_cls)

    def forward(self, batch):
        v = torch.relu(self.video(batch["video"]))
        audio = batch.get("audio")
        if audio is None:
            a = self.missing_audio.expand(v.size(0), -1)
        else:
            a = torch.relu(self.audio(audio))
        return self.head(torch.cat([v, a], dim=-1))
