# spec: {"model": "distill_adaptive_temperature.py:DistillationHead", "init": {"args": [12, 5]}, "inputs": [{"tensor": [6, 12]}, {"tensor": [6, 5]}]}
import torch
from torch import nn
from torch.nn import functional as F


class DistillationHead(nn.Module):
    """Knowledge-distillation head: the temperature follows the teacher's logit spread."""

    def __init__(self, in_features: int, num_classes: int, temperature: float = 4.0, alpha: float = 0.5):
        super().__init__()
        self.student = nn.Linear(in_features, num_classes)
        self.temperature = temperature
        self.alpha = alpha

    def forward(self, x, teacher_logits):
        student_logits = self.student(x)
        spread = float(teacher_logits.std())
        t = self.temperature * spread / (1.0 + spread)
        soft_teacher = F.softmax(teacher_logits / t, dim=-1)
        log_student = F.log_softmax(student_logits / t, dim=-1)
        kd = F.kl_div(log_student, soft_teacher, reduction="batchmean") * (t * t)
        return self.alpha * kd + (1 - self.alpha) * student_logits.logsumexp(-1).mean()
