# spec: {"model": "ema_state_dict_copy_fwd.py:EMAWrapper", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class EMAWrapper(nn.Module):
    """timm ModelEmaV2-like wrapper whose update walks both models' state_dict() values (so
    buffers are averaged too) in the training forward."""

    def __init__(self, dim, decay=0.999):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(dim, dim), nn.BatchNorm1d(dim), nn.ReLU())
        self.ema = nn.Sequential(nn.Linear(dim, dim), nn.BatchNorm1d(dim), nn.ReLU())
        self.ema.load_state_dict(self.model.state_dict())
        self.decay = decay

    @torch.no_grad()
    def _update(self):
        for ema_v, model_v in zip(self.ema.state_dict().values(), self.model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.mul_(self.decay).add_(model_v, alpha=1.0 - self.decay)
            else:
                ema_v.copy_(model_v)

    def forward(self, x):
        out = self.model(x)
        self._update()
        return out
