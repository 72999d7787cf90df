# spec: {"model": "xt_continuous_rollout.py:RolloutTrainer", "init": {"args": [8, 16]}, "inputs": [{"tensor": [3, 14, 8]}]}
import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

# vendored from x-transformers 2.31.10 x_transformers/continuous.py
# (ContinuousAutoregressiveWrapper.forward_rollout: crop random windows and align them right;
# the transformer is a stand-in MLP)


def exists(v):
    return v is not None


def align_right(t, lens, pad_id=0):
    batch, seq_len, device, dtype = *t.shape[:2], t.device, t.dtype

    assert lens.ndim == 1 and lens.shape[0] == batch
    assert lens.amax() <= seq_len

    pad_lens = seq_len - lens
    max_pad_len = pad_lens.amax()

    batch_arange = torch.arange(batch, device=device, dtype=torch.long)[..., None]
    prompt_len_arange = torch.arange(seq_len, device=device, dtype=torch.long)

    t = F.pad(t, (0, 0, max_pad_len, 0), value=pad_id)
    offset = max_pad_len - pad_lens

    aligned = t[batch_arange, prompt_len_arange + offset[..., None], ...]
    return aligned


class RolloutTrainer(nn.Module):
    def __init__(self, dim, hidden, rollout_steps=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.rollout_steps = rollout_steps

    def forward(self, x, mask=None):
        steps = self.rollout_steps
        batch, seq_len, device = *x.shape[:2], x.device

        valid_tokens_for_rollout = torch.full((batch,), seq_len - steps, device=device)

        seq_start_pos = (torch.rand((batch,), device=device) * valid_tokens_for_rollout).floor().long()

        # crop out sequence to use

        seq_end_pos = seq_start_pos + steps
        max_end_pos = seq_end_pos.amax().item()
        x = x[:, :max_end_pos]

        x = align_right(x, seq_end_pos)

        inp, targets = x[:, :-steps], x[:, -steps:]

        preds = []
        last = inp[:, -1]
        for _ in range(steps):
            last = self.net(last)
            preds.append(last)

        preds = torch.stack(preds, dim=1)
        return F.mse_loss(preds, targets)
