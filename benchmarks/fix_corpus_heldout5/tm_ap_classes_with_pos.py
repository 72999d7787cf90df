# spec: {"model": "tm_ap_classes_with_pos.py:MultiLabelTagger", "init": {"args": [12, 6]}, "inputs": [{"tensor": [16, 12]}, {"tensor": [16, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
from torch import nn


def _average_precision(scores, target):
    order = torch.argsort(scores, descending=True)
    hits = target[order].float()
    precision_at_k = hits.cumsum(0) / torch.arange(1, hits.numel() + 1, device=hits.device)
    return (precision_at_k * hits).sum() / hits.sum()


class MultiLabelTagger(nn.Module):
    """Audio/image tagger whose forward also reports macro mAP over classes that have positives."""

    def __init__(self, in_dim, num_labels):
        super().__init__()
        self.classifier = nn.Linear(in_dim, num_labels)

    def forward(self, x, targets):
        logits = self.classifier(x)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, targets.float())
        present = torch.nonzero(targets.sum(0) > 0).squeeze(1)
        aps = [_average_precision(logits[:, c], targets[:, c]) for c in present]
        mean_ap = torch.stack(aps).mean() if len(aps) else logits.new_zeros(())
        return loss, mean_ap
