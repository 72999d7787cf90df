# spec: {"model": "moe_switch_top1_mask.py:SwitchFeedForward", "init": {"args": [16, 4]}, "inputs": [{"tensor": [3, 5, 16]}]}
import torch
from torch import nn


class SwitchFeedForward(nn.Module):
    """Switch Transformer (labml style): argmax routing, each expert on `x[mask]`, the
    outputs scaled by the router probability of the chosen expert."""

    def __init__(self, d_model, n_experts):
        super().__init__()
        self.n_experts = n_experts
        self.experts = nn.ModuleList(
            [
                nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.ReLU(), nn.Linear(4 * d_model, d_model))
                for _ in range(n_experts)
            ]
        )
        self.switch = nn.Linear(d_model, n_experts)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        seq_len, batch_size, d_model = x.shape
        x = x.view(-1, d_model)
        route_prob = self.softmax(self.switch(x))
        route_prob_max, routes = torch.max(route_prob, dim=-1)
        final_output = x.new_zeros(x.shape)
        for i in range(self.n_experts):
            mask = routes == i
            final_output[mask] = self.experts[i](x[mask])
        final_output = final_output * route_prob_max.view(-1, 1)
        return final_output.view(seq_len, batch_size, d_model)
