# spec: {"model": "performer_projection_updater.py:PerformerBlock", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 6, 8]}], "mode": "train"}
import math

import torch
from torch import nn


# vendored from performer-pytorch 1.1.4 performer_pytorch/performer_pytorch.py
def exists(val):
    return val is not None


def find_modules(nn_module, type):
    return [module for module in nn_module.modules() if isinstance(module, type)]


def get_module_device(module):
    return next(module.parameters()).device


def orthogonal_matrix_chunk(cols, device = None):
    unstructured_block = torch.randn((cols, cols), device = device)
    q, r = torch.linalg.qr(unstructured_block.cpu(), mode = 'reduced')
    q, r = map(lambda t: t.to(device), (q, r))
    return q.t()


class FastAttention(nn.Module):
    def __init__(self, dim_heads, nb_features = None):
        super().__init__()
        nb_features = nb_features if exists(nb_features) else int(dim_heads * math.log(dim_heads))
        self.dim_heads = dim_heads
        self.nb_features = nb_features
        projection_matrix = torch.randn(nb_features, dim_heads)
        self.register_buffer('projection_matrix', projection_matrix)

    @torch.no_grad()
    def redraw_projection_matrix(self, device):
        projections = torch.randn(self.nb_features, self.dim_heads, device = device)
        self.projection_matrix.copy_(projections)

    def forward(self, q, k, v):
        q = torch.relu(q @ self.projection_matrix.t()) + 1e-3
        k = torch.relu(k @ self.projection_matrix.t()) + 1e-3
        context = torch.einsum('...nd,...ne->...de', k, v)
        d_inv = 1. / torch.einsum('...nd,...d->...n', q, k.sum(dim = -2))
        return torch.einsum('...de,...nd,...n->...ne', context, q, d_inv)


# a module for keeping track of when to update the projections

class ProjectionUpdater(nn.Module):
    def __init__(self, instance, feature_redraw_interval):
        super().__init__()
        self.instance = instance
        self.feature_redraw_interval = feature_redraw_interval
        self.register_buffer('calls_since_last_redraw', torch.tensor(0))

    def fix_projections_(self):
        self.feature_redraw_interval = None

    def redraw_projections(self):
        model = self.instance

        if not self.training:
            return

        if exists(self.feature_redraw_interval) and self.calls_since_last_redraw >= self.feature_redraw_interval:
            device = get_module_device(model)

            fast_attentions = find_modules(model, FastAttention)
            for fast_attention in fast_attentions:
                fast_attention.redraw_projection_matrix(device)

            self.calls_since_last_redraw.zero_()
            return

        self.calls_since_last_redraw += 1

    def forward(self, x):
        raise NotImplemented


class PerformerBlock(nn.Module):
    def __init__(self, dim, feature_redraw_interval):
        super().__init__()
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)
        self.attn = FastAttention(dim, nb_features = 16)
        self.to_out = nn.Linear(dim, dim)
        self.proj_updater = ProjectionUpdater(self.attn, feature_redraw_interval)

    def forward(self, x):
        self.proj_updater.redraw_projections()
        q, k, v = self.to_qkv(x).chunk(3, dim = -1)
        return x + self.to_out(self.attn(q, k, v))
