# spec: {"model": "train_tqdm_unroll_steps.py:UnrolledSolver", "init": {"args": [6, 3]}, "inputs": [{"tensor": [2, 6]}]}
from torch import nn
from tqdm import tqdm


class UnrolledSolver(nn.Module):
    """Learned gradient-descent solver (unrolled optimisation) whose unroll loop kept the tqdm
    bar from the notebook it came from."""

    def __init__(self, dim, steps):
        super().__init__()
        self.step_net = nn.Linear(dim, dim)
        self.steps = steps

    def forward(self, x):
        z = x
        for _ in tqdm(range(self.steps), leave=False, disable=True):
            z = z - 0.1 * self.step_net(z).tanh()
        return z
