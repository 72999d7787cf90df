"""gpytorch: an exact GP's marginal log likelihood (RBF kernel, Gaussian likelihood) in forward."""

import gpytorch
import torch


class GP(gpytorch.models.ExactGP):
    def __init__(self, x, y, lik):
        super().__init__(x, y, lik)
        self.mean = gpytorch.means.ConstantMean()
        self.cov = gpytorch.kernels.RBFKernel()

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean(x), self.cov(x))


class Loss(torch.nn.Module):
    def __init__(self, x, y) -> None:
        super().__init__()
        lik = gpytorch.likelihoods.GaussianLikelihood()
        self.gp = GP(x, y, lik)
        self.mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, self.gp)

    def forward(self, x, y):
        self.gp.train()
        return -self.mll(self.gp(x), y)


def make():
    torch.manual_seed(0)
    x, y = torch.randn(10, 2), torch.randn(10)
    return Loss(x, y), (x, y)
