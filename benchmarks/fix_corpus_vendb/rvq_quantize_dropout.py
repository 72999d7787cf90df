# spec: {"model": "rvq_quantize_dropout.py:ResidualVQ", "init": {"args": [16, 32, 4]}, "inputs": [{"tensor": [2, 9, 16]}], "mode": "train"}
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

# vendored from vector-quantize-pytorch 1.32.0 vector_quantize_pytorch/residual_vq.py
# (quantize dropout of ResidualVQ.forward with get_maybe_sync_seed; the per-layer quantizer is a
# plain nearest-code lookup with a straight-through estimator)


def exists(val):
    return val is not None


def round_up_multiple(num, mult):
    return ((num + mult - 1) // mult) * mult


def pad_at_dim(t, pad, dim=-1, value=0.0):
    dims_from_right = (-dim - 1) if dim < 0 else (t.ndim - dim - 1)
    zeros = (0, 0) * dims_from_right
    return F.pad(t, (*zeros, *pad), value=value)


def is_distributed():
    return dist.is_initialized() and dist.get_world_size() > 1


def get_maybe_sync_seed(device, max_size=10_000):
    rand_int = torch.randint(0, max_size, (), device=device)

    if is_distributed():
        dist.all_reduce(rand_int)

    return rand_int.item()


class NearestCode(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(codebook_size, dim))

    def forward(self, x):
        ids = torch.cdist(x, self.embed.expand(x.shape[0], -1, -1)).argmin(dim=-1)
        q = self.embed[ids]
        loss = F.mse_loss(x, q.detach())
        return x + (q - x).detach(), ids, loss


class ResidualVQ(nn.Module):
    def __init__(self, dim, codebook_size, num_quantizers, quantize_dropout=True, quantize_dropout_cutoff_index=0, quantize_dropout_multiple_of=1):
        super().__init__()
        self.num_quantizers = num_quantizers
        self.layers = nn.ModuleList([NearestCode(dim, codebook_size) for _ in range(num_quantizers)])
        self.quantize_dropout = quantize_dropout and num_quantizers > 1
        self.quantize_dropout_cutoff_index = quantize_dropout_cutoff_index
        self.quantize_dropout_multiple_of = quantize_dropout_multiple_of

    def forward(self, x, rand_quantize_dropout_fixed_seed=None):
        num_quant, quant_dropout_multiple_of, device = self.num_quantizers, self.quantize_dropout_multiple_of, x.device

        quantized_out = 0.0
        residual = x

        all_losses = []
        all_indices = []

        should_quantize_dropout = self.training and self.quantize_dropout

        # sample a layer index at which to dropout further residual quantization

        if should_quantize_dropout:
            if not exists(rand_quantize_dropout_fixed_seed):
                rand_quantize_dropout_fixed_seed = get_maybe_sync_seed(device)

            rand = random.Random(rand_quantize_dropout_fixed_seed)

            rand_quantize_dropout_index = rand.randrange(self.quantize_dropout_cutoff_index, num_quant)

            if quant_dropout_multiple_of != 1:
                rand_quantize_dropout_index = round_up_multiple(rand_quantize_dropout_index + 1, quant_dropout_multiple_of) - 1

        null_indices = torch.full(x.shape[:2], -1, device=device, dtype=torch.long)
        null_loss = torch.full((1,), 0.0, device=device, dtype=x.dtype)

        for quantizer_index, layer in enumerate(self.layers):
            if should_quantize_dropout and quantizer_index > rand_quantize_dropout_index:
                all_indices.append(null_indices)
                all_losses.append(null_loss)
                continue

            quantized, indices, loss = layer(residual)

            residual = residual - quantized.detach()
            quantized_out = quantized_out + quantized

            all_indices.append(indices)
            all_losses.append(loss.reshape(1))

        all_losses, all_indices = map(lambda t: torch.stack(t, dim=-1), (all_losses, all_indices))
        return quantized_out, all_indices, all_losses
