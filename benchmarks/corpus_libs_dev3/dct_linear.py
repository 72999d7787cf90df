"""torch-dct: a frequency-domain mixing layer built from LinearDCT (DCT as a matrix multiply)."""

import torch
import torch_dct as dct


class FreqMix(torch.nn.Module):
    def __init__(self, n: int = 16) -> None:
        super().__init__()
        self.dct = dct.LinearDCT(n, "dct", norm="ortho")
        self.idct = dct.LinearDCT(n, "idct", norm="ortho")
        self.filt = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        f = self.dct(x) * self.filt
        return self.idct(f)


def make():
    torch.manual_seed(0)
    return FreqMix(), (torch.randn(3, 16),)
