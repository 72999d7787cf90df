"""torchcde: a neural controlled differential equation classifier over irregular time series."""

import torch
import torchcde


class CDEFunc(torch.nn.Module):
    def __init__(self, input_channels: int, hidden: int) -> None:
        super().__init__()
        self.input_channels, self.hidden = input_channels, hidden
        self.linear = torch.nn.Linear(hidden, hidden * input_channels)

    def forward(self, t, z):
        return self.linear(z).tanh().view(z.size(0), self.hidden, self.input_channels)


class NeuralCDE(torch.nn.Module):
    def __init__(self, input_channels: int = 3, hidden: int = 8) -> None:
        super().__init__()
        self.func = CDEFunc(input_channels, hidden)
        self.initial = torch.nn.Linear(input_channels, hidden)
        self.readout = torch.nn.Linear(hidden, 2)

    def forward(self, coeffs):
        X = torchcde.CubicSpline(coeffs)
        X0 = X.evaluate(X.interval[0])
        z0 = self.initial(X0)
        zt = torchcde.cdeint(X=X, z0=z0, func=self.func, t=X.interval, method="rk4",
                             options={"step_size": 0.25})
        return self.readout(zt[:, -1])


def make():
    torch.manual_seed(0)
    x = torch.cumsum(torch.randn(2, 6, 3), dim=1)
    coeffs = torchcde.natural_cubic_coeffs(x)
    return NeuralCDE(), (coeffs,)
