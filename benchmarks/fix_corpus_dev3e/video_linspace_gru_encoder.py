# spec: {"model": "video_linspace_gru_encoder.py:UniformClipEncoder", "init": {"args": [4, 8]}, "inputs": [{"tensor": [2, 12, 8]}]}
import torch
from torch import nn


class UniformClipEncoder(nn.Module):
    """Uniform temporal subsampling (pytorchvideo's `uniform_temporal_subsample`): indices from
    `torch.linspace`, frames by `index_select`."""

    def __init__(self, num_frames, dim):
        super().__init__()
        self.num_frames = num_frames
        self.enc = nn.GRU(dim, dim, batch_first=True)

    def forward(self, video):
        t = video.shape[1]
        idx = torch.linspace(0, t - 1, self.num_frames).clamp(0, t - 1).long()
        frames = torch.index_select(video, 1, idx)
        _, h = self.enc(frames)
        return h[-1]
