# spec: {"model": "audio_multires_stft_loss.py:MultiResSTFTLoss", "inputs": [{"tensor": [2, 256], "init": "randn"}, {"tensor": [2, 256], "init": "randn"}]}
import torch
from torch import nn


class MultiResSTFTLoss(nn.Module):
    """Multi-resolution STFT loss (Parallel WaveGAN): spectral convergence plus log magnitude."""

    def __init__(self, resolutions=((64, 16, 64), (128, 32, 128))):
        super().__init__()
        self.resolutions = resolutions
        for i, (_, _, win) in enumerate(resolutions):
            self.register_buffer(f"window_{i}", torch.hann_window(win))

    def forward(self, pred, target):
        loss = pred.new_zeros(())
        for i, (n_fft, hop, win) in enumerate(self.resolutions):
            window = getattr(self, f"window_{i}")
            p = torch.stft(pred, n_fft, hop, win, window, return_complex=True).abs().clamp_min(1e-7)
            t = torch.stft(target, n_fft, hop, win, window, return_complex=True).abs().clamp_min(1e-7)
            sc = torch.linalg.norm(t - p, ord="fro", dim=(-2, -1)) / torch.linalg.norm(t, ord="fro", dim=(-2, -1))
            loss = loss + sc.mean() + (t.log() - p.log()).abs().mean()
        return loss / len(self.resolutions)
