# spec: {"model": "lib_zuko_flow_logprob.py:ConditionalDensity", "inputs": [{"tensor": [8, 3]}, {"tensor": [8, 5]}]}
import torch
import zuko
from torch import nn


class ConditionalDensity(nn.Module):
    """Simulation-based-inference style: a zuko conditional flow on self, log_prob via a chain."""

    def __init__(self, features=3, context=5):
        super().__init__()
        self.embed = nn.Linear(context, context)
        self.flow = zuko.flows.MAF(features, context, transforms=2, hidden_features=[16, 16])

    def forward(self, theta, x):
        c = self.embed(x)
        log_p = self.flow(c).log_prob(theta)
        return -log_p.mean()
