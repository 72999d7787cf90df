"""gpytorch: a kernel matrix and a multivariate normal in forward."""

import gpytorch
import torch


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mean = gpytorch.means.ConstantMean()
        self.kernel = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        mean = self.mean(x)
        covar = self.kernel(x)
        dist = gpytorch.distributions.MultivariateNormal(mean, covar)
        return dist.log_prob(torch.zeros(x.shape[0]))


def make():
    return Model(), (torch.randn(8, 2),)
