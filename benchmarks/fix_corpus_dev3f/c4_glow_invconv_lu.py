# spec: {"model": "c4_glow_invconv_lu.py:FlowStep", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 6, 6]}], "calls": 3}
import numpy as np
import scipy.linalg
import torch
import torch.nn.functional as F
from torch import nn


class InvConv2dLU(nn.Module):
    """rosinality's Glow ``InvConv2dLU``: P, L, U and the sign of s fixed as buffers from a
    SciPy LU at init; the weight rebuilt each call; logdet = H*W*sum(log|s|)."""

    def __init__(self, in_channel):
        super().__init__()
        weight = np.random.randn(in_channel, in_channel)
        q, _ = scipy.linalg.qr(weight)
        w_p, w_l, w_u = scipy.linalg.lu(q.astype(np.float32))
        w_s = np.diag(w_u)
        u_mask = np.triu(np.ones_like(w_u), 1)
        l_mask = u_mask.T
        w_p, w_l, w_s, w_u = (torch.from_numpy(a.copy()) for a in (w_p, w_l, w_s, w_u))
        self.register_buffer("w_p", w_p)
        self.register_buffer("u_mask", torch.from_numpy(u_mask))
        self.register_buffer("l_mask", torch.from_numpy(l_mask))
        self.register_buffer("s_sign", torch.sign(w_s))
        self.register_buffer("l_eye", torch.eye(l_mask.shape[0]))
        self.w_l = nn.Parameter(w_l)
        self.w_s = nn.Parameter(torch.log(torch.abs(w_s)))
        self.w_u = nn.Parameter(torch.triu(w_u, 1))

    def calc_weight(self):
        weight = self.w_p @ (self.w_l * self.l_mask + self.l_eye) @ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s)))
        return weight.unsqueeze(2).unsqueeze(3)

    def forward(self, input):
        _, _, height, width = input.shape
        weight = self.calc_weight()
        out = F.conv2d(input, weight)
        logdet = height * width * torch.sum(self.w_s)
        return out, logdet


class ActNormInitialised(nn.Module):
    """ActNorm with data-free init (loc 0, scale 1): no first-call initialisation branch."""

    def __init__(self, in_channel):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, in_channel, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, in_channel, 1, 1))

    def forward(self, input):
        _, _, height, width = input.shape
        log_abs = torch.log(torch.abs(self.scale))
        logdet = height * width * torch.sum(log_abs)
        return self.scale * (input + self.loc), logdet


class FlowStep(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        self.actnorm = ActNormInitialised(in_channel)
        self.invconv = InvConv2dLU(in_channel)
        self.coupling = nn.Sequential(nn.Conv2d(in_channel // 2, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, in_channel, 3, padding=1))

    def forward(self, input):
        out, logdet = self.actnorm(input)
        out, det1 = self.invconv(out)
        in_a, in_b = out.chunk(2, 1)
        log_s, t = self.coupling(in_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        out_b = (in_b + t) * s
        det2 = torch.sum(torch.log(s).view(input.shape[0], -1), 1)
        return torch.cat([in_a, out_b], 1), logdet + det1 + det2
