# spec: {"model": "contrastive_supcon_nan_print.py:SupConHead", "init": {"args": [24]}, "inputs": [{"tensor": [8, 2, 24]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import torch
import torch.nn.functional as F
from torch import nn


class SupConHead(nn.Module):
    """Supervised contrastive loss (Khosla et al.) over two views, with the NaN check people add while debugging."""

    def __init__(self, dim, temperature=0.07, base_temperature=0.07):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 16))
        self.temperature = temperature
        self.base_temperature = base_temperature

    def forward(self, features, labels):
        bsz, n_views, _ = features.shape
        z = F.normalize(self.proj(features), dim=-1)
        contrast = torch.cat(torch.unbind(z, dim=1), dim=0)
        logits = contrast @ contrast.T / self.temperature
        logits = logits - logits.max(dim=1, keepdim=True).values.detach()
        labels = labels.view(-1, 1)
        mask = torch.eq(labels, labels.T).float().repeat(n_views, n_views)
        self_mask = 1 - torch.eye(bsz * n_views)
        mask = mask * self_mask
        exp_logits = torch.exp(logits) * self_mask
        log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))
        mean_log_prob_pos = (mask * log_prob).sum(1) / mask.sum(1)
        loss = -(self.temperature / self.base_temperature) * mean_log_prob_pos
        loss = loss.mean()
        if torch.isnan(loss):
            print("SupCon loss is NaN; positives per anchor:", mask.sum(1))
        return loss
