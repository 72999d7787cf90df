# spec: {"model": "asr_utterance_mean_split.py:UtteranceEmbedding", "init": {"args": [8, 4]}, "inputs": [{"tensor": [12, 8], "init": "randn"}, {"tensor": [3], "dtype": "int64", "data": [5, 4, 3]}]}
import torch
from torch import nn


class UtteranceEmbedding(nn.Module):
    """Speaker/utterance embedding over a packed batch of frames (SpeechBrain / NeMo style):
    the frames of all utterances are concatenated, the per-utterance frame counts are read with
    `.tolist()` as split sizes and each utterance is mean-pooled."""

    def __init__(self, feat_dim, emb_dim):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU())
        self.proj = nn.Linear(feat_dim, emb_dim)

    def forward(self, frames, frame_counts):
        h = self.encoder(frames)
        pooled = torch.stack([u.mean(dim=0) for u in h.split(frame_counts.tolist())])
        return self.proj(pooled)
