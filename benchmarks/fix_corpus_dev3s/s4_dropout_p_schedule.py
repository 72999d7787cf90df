# spec: {"model": "s4_dropout_p_schedule.py:ScheduledDropoutMLP", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3, "mode": "train"}
import torch
from torch import nn


class ScheduledDropoutMLP(nn.Module):
    """Curriculum dropout: the module's `nn.Dropout.p` is raised each step (Morerio et al.)."""

    def __init__(self, dim, final_p=0.5, step_size=0.1):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(0.0)
        self.final_p = final_p
        self.step_size = step_size

    def forward(self, x):
        self.dropout.p = min(self.final_p, self.dropout.p + self.step_size)
        return self.dropout(torch.relu(self.fc(x)))
