# spec: {"model": "tts_length_regulator_tolist.py:LengthRegulator", "init": {"args": [16]}, "inputs": [{"tensor": [2, 6, 16]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class LengthRegulator(nn.Module):
    """FastSpeech length regulator: predicted durations expand phoneme states to frames."""

    def __init__(self, dim):
        super().__init__()
        self.duration_predictor = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 1))

    def expand(self, x, durations):
        out = []
        for seq, dur in zip(x, durations.tolist()):
            out.append(torch.repeat_interleave(seq, torch.tensor(dur), dim=0))
        max_len = max(o.size(0) for o in out)
        return torch.stack([F.pad(o, (0, 0, 0, max_len - o.size(0))) for o in out])

    def forward(self, x):
        log_dur = self.duration_predictor(x).squeeze(-1)
        durations = torch.clamp(torch.round(torch.exp(log_dur) - 1), min=1).long()
        return self.expand(x, durations), log_dur
