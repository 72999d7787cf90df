# spec: {"model": "loss_margin_float_branch.py:AdaptiveMarginCosFace", "init": {"args": [16, 10]}, "inputs": [{"tensor": [8, 16]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 10}], "mode": "train"}
import torch
import torch.nn as nn
import torch.nn.functional as F


class AdaptiveMarginCosFace(nn.Module):
    """CosFace head whose margin is relaxed while the mean target cosine is still low."""

    def __init__(self, in_features, num_classes, scale=30.0, margin=0.35):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, in_features) * 0.01)
        self.scale = scale
        self.margin = margin

    def forward(self, embeddings, labels):
        cosine = F.linear(F.normalize(embeddings), F.normalize(self.weight))
        target_cos = cosine.gather(1, labels[:, None]).squeeze(1)
        mean_cos = float(target_cos.mean())
        margin = self.margin if mean_cos > 0.2 else self.margin * 0.5
        one_hot = F.one_hot(labels, cosine.size(1)).to(cosine.dtype)
        logits = self.scale * (cosine - margin * one_hot)
        return F.cross_entropy(logits, labels), mean_cos
