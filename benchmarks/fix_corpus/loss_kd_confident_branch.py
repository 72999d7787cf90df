# spec: {"model": "loss_kd_confident_branch.py:SelectiveDistillation", "init": {"args": [12, 6]}, "inputs": [{"tensor": [8, 12]}, {"tensor": [8, 6]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
import torch.nn.functional as F
from torch import nn


class SelectiveDistillation(nn.Module):
    """Distils from the teacher only when the teacher is confident on the batch, else falls back to CE."""

    def __init__(self, in_dim, num_classes, conf_thresh=0.5, tau=2.0):
        super().__init__()
        self.student = nn.Linear(in_dim, num_classes)
        self.conf_thresh, self.tau = conf_thresh, tau
        self.kd_batches = 0

    def forward(self, x, teacher_logits, labels):
        logits = self.student(x)
        teacher_conf = teacher_logits.softmax(-1).max(-1).values.mean()
        if teacher_conf > self.conf_thresh:
            soft = F.log_softmax(logits / self.tau, -1)
            target = F.softmax(teacher_logits / self.tau, -1)
            loss = F.kl_div(soft, target, reduction="batchmean") * self.tau**2
            self.kd_batches += 1
        else:
            loss = F.cross_entropy(logits, labels)
        return loss
