"""normflows: a RealNVP flow (affine coupling blocks with permutations) computing the forward KL."""

import torch
import normflows as nf


class RealNVP(torch.nn.Module):
    def __init__(self, K: int = 2) -> None:
        super().__init__()
        base = nf.distributions.base.DiagGaussian(2)
        flows = []
        for _ in range(K):
            param_map = nf.nets.MLP([1, 16, 2], init_zeros=True)
            flows.append(nf.flows.AffineCouplingBlock(param_map))
            flows.append(nf.flows.Permute(2, mode="swap"))
        self.model = nf.NormalizingFlow(base, flows)

    def forward(self, x):
        return self.model.forward_kld(x)


def make():
    torch.manual_seed(0)
    return RealNVP(), (torch.randn(8, 2),)
