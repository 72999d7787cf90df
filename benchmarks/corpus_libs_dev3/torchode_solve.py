"""torchode: batched ODE solve of a learned vector field with Dopri5 and an integral controller."""

import torch
import torchode as to


class ODEBlock(torch.nn.Module):
    def __init__(self, dim: int = 3) -> None:
        super().__init__()
        self.f = torch.nn.Linear(dim, dim)
        term = to.ODETerm(lambda t, y: torch.tanh(self.f(y)))
        step = to.Dopri5(term=term)
        ctrl = to.IntegralController(atol=1e-4, rtol=1e-3, term=term)
        self.solver = to.AutoDiffAdjoint(step, ctrl)

    def forward(self, y0):
        t_eval = torch.linspace(0.0, 1.0, 4).repeat(y0.shape[0], 1)
        sol = self.solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval))
        return sol.ys[:, -1]


def make():
    torch.manual_seed(0)
    return ODEBlock(), (torch.randn(2, 3),)
