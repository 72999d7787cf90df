"""normflows: planar flows sampled from the base and scored (log q of the samples)."""

import torch
import normflows as nf


class PlanarFlow(torch.nn.Module):
    def __init__(self, K: int = 3) -> None:
        super().__init__()
        base = nf.distributions.base.DiagGaussian(2)
        flows = [nf.flows.Planar((2,)) for _ in range(K)]
        self.model = nf.NormalizingFlow(base, flows)

    def forward(self, z):
        log_q = torch.zeros(z.shape[0])
        for flow in self.model.flows:
            z, log_det = flow(z)
            log_q = log_q - log_det
        return z, log_q


def make():
    torch.manual_seed(0)
    return PlanarFlow(), (torch.randn(8, 2),)
