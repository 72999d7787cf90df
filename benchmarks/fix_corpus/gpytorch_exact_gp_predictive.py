# spec: {"model": "gpytorch_exact_gp_predictive.py:GPRegressor", "init": {"args": [20]}, "inputs": [{"tensor": [5, 1]}]}
import gpytorch
import torch
from torch import nn


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class GPRegressor(nn.Module):
    """gpytorch's exact GP regression tutorial model; forward returns the predictive mean and a 2-sigma band."""

    def __init__(self, n_train):
        super().__init__()
        train_x = torch.linspace(0, 1, n_train)[:, None]
        train_y = torch.sin(train_x[:, 0] * 6.28)
        self.likelihood = gpytorch.likelihoods.GaussianLikelihood()
        self.gp = ExactGPModel(train_x, train_y, self.likelihood)
        self.gp.eval()
        self.likelihood.eval()

    def forward(self, x):
        with gpytorch.settings.fast_pred_var():
            pred = self.likelihood(self.gp(x))
        lower, upper = pred.confidence_region()
        return pred.mean, lower, upper
