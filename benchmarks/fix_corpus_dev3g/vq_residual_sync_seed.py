# spec: {"model": "vq_residual_sync_seed.py:QuantizeDropoutRVQ", "init": {"args": [8, 16, 4]}, "inputs": [{"tensor": [2, 10, 8]}], "mode": "train"}
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/residual_vq.py
def exists(val):
    return val is not None


def is_distributed():
    return dist.is_initialized() and dist.get_world_size() > 1


def get_maybe_sync_seed(device, max_size = 10_000):
    rand_int = torch.randint(0, max_size, (), device = device)

    if is_distributed():
        dist.all_reduce(rand_int)

    return rand_int.item()


class SimpleCodebook(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(codebook_size, dim))

    def forward(self, x):
        dist_ = torch.cdist(x, self.embed.unsqueeze(0).expand(x.shape[0], -1, -1))
        indices = dist_.argmin(dim = -1)
        quantized = F.embedding(indices, self.embed)
        return quantized, indices


class QuantizeDropoutRVQ(nn.Module):
    def __init__(self, dim, codebook_size, num_quantizers, quantize_dropout_cutoff_index = 1):
        super().__init__()
        self.layers = nn.ModuleList([SimpleCodebook(dim, codebook_size) for _ in range(num_quantizers)])
        self.num_quantizers = num_quantizers
        self.quantize_dropout_cutoff_index = quantize_dropout_cutoff_index

    def forward(self, x):
        quantized_out = 0.
        residual = x
        should_quantize_dropout = self.training
        if should_quantize_dropout:
            rand = random.Random(get_maybe_sync_seed(x.device))
            rand_quantize_dropout_index = rand.randrange(self.quantize_dropout_cutoff_index, self.num_quantizers)
        all_indices = []
        for quantizer_index, layer in enumerate(self.layers):
            if should_quantize_dropout and quantizer_index > rand_quantize_dropout_index:
                break
            quantized, indices = layer(residual)
            residual = residual - quantized.detach()
            quantized_out = quantized_out + quantized
            all_indices.append(indices)
        return quantized_out, torch.stack(all_indices, dim = -1)
