# spec: {"model": "lp_inst_discriminative_unique.py:InstanceEmbeddingLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 12, 12]}, {"tensor": [2, 12, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
import torch.nn.functional as F
from torch import nn


class InstanceEmbeddingLoss(nn.Module):
    """Discriminative instance-embedding loss (De Brabandere et al.): a pull term per instance id
    found with torch.unique, background id 0 skipped."""

    def __init__(self, in_ch, emb_dim, delta_v=0.5, max_instances=8):
        super().__init__()
        self.embed = nn.Conv2d(in_ch, emb_dim, 1)
        self.delta_v = delta_v
        self.max_instances = max_instances

    def forward(self, feats, instance_ids):
        emb = self.embed(feats).permute(0, 2, 3, 1).reshape(-1, self.embed.out_channels)
        ids = instance_ids.reshape(-1)
        pull = emb.new_zeros(())
        n = 0
        for k in torch.unique(ids):
            if k == 0:
                continue
            members = emb[ids == k]
            mu = members.mean(dim=0)
            dist = (members - mu).norm(dim=1)
            pull = pull + F.relu(dist - self.delta_v).pow(2).mean()
            n += 1
        return pull / max(n, 1)
