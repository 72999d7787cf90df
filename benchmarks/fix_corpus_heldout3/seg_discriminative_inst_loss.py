# spec: {"model": "seg_discriminative_inst_loss.py:DiscriminativeLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [8, 12, 12]}, {"tensor": [12, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
from torch import nn


class DiscriminativeLoss(nn.Module):
    """Instance-embedding loss of De Brabandere et al. (pull to the cluster mean, push means apart)."""

    def __init__(self, in_ch, emb_dim, delta_v=0.5, delta_d=1.5):
        super().__init__()
        self.embed = nn.Conv2d(in_ch, emb_dim, 1)
        self.delta_v = delta_v
        self.delta_d = delta_d

    def forward(self, feats, instance_map):
        emb = self.embed(feats[None])[0].flatten(1)  # (E, HW)
        labels = instance_map.flatten()
        means, pull = [], 0.0
        ids = torch.unique(labels)
        for inst in ids[ids != 0]:
            member = emb[:, labels == inst]
            mu = member.mean(dim=1)
            pull = pull + ((member - mu[:, None]).norm(dim=0) - self.delta_v).clamp(min=0).pow(2).mean()
            means.append(mu)
        means = torch.stack(means)
        dist = torch.cdist(means, means)
        margin = (2 * self.delta_d - dist).clamp(min=0).pow(2)
        push = margin.triu(diagonal=1).sum() / max(len(means) * (len(means) - 1) / 2, 1)
        return pull / len(means) + push
