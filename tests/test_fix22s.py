"""Module state written in forward whose value the model reads on (issue 22, branch fix22s).

A number on ``self`` that forward updates from a tensor (``self.ema = m * self.ema + (1 - m) *
loss.item()``, ``self.amax = max(self.amax, x.abs().max().item())``) is a running statistic:
the ``.item()`` breaks the graph and the attribute's value is a guard (a recompile per call).
It becomes a non-persistent 0-d buffer updated as a tensor, and its reads in forward are read
as tensors (:func:`compilelint.fix.codemods.counters.tensor_reads`): offered only where each
read computes the same with a 0-d tensor (arithmetic with tensors and numbers, a clamp bound).
A read that needs a Python number (a number-only argument such as ``torch.histc``'s
``min=``, a Python ``if`` that raises) keeps the number: no fix, with the reason.

Each VALID case is checked as text and, marked ``torch``, against the original: the original
breaks; the fixed model has no break (``explain`` first); outputs, parameter gradients and the
state after three calls equal, compiled and uncompiled. Each INVALID case is checked for the
reason it gives.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_text, load_module, originals_break_test
from .torch_checks import compile_without_break

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# multi-task loss balanced by the running magnitude of each loss (an EMA of `.item()`)
EMA = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, momentum=0.9):
            super().__init__()
            self.a = nn.Linear(6, 1)
            self.b = nn.Linear(6, 3)
            self.momentum = momentum
            self.scale_a = 1.0
            self.scale_b = 1.0

        def forward(self, x, y):
            la = F.mse_loss(self.a(x).squeeze(-1), y)
            lb = self.b(x).logsumexp(-1).mean()
            self.scale_a = self.momentum * self.scale_a + (1 - self.momentum) * la.item()
            self.scale_b = self.momentum * self.scale_b + (1 - self.momentum) * lb.item()
            return la / (self.scale_a + 1e-6) + lb / (self.scale_b + 1e-6)
    """
)

# delayed scaling: the largest magnitude seen so far scales the input (`max` of the state)
AMAX = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, qmax=127.0):
            super().__init__()
            self.lin = nn.Linear(6, 3)
            self.qmax = qmax
            self.amax = 1e-4

        def forward(self, x, y):
            self.amax = max(self.amax, x.abs().max().item())
            scale = self.qmax / self.amax
            xq = torch.clamp(x * scale, -self.qmax, self.qmax) / scale
            return self.lin(xq) + y.unsqueeze(-1)
    """
)

# a min/max observer then fake quantization with the scale computed from the two statistics
MINMAX = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 3)
            self.lo = 0.0
            self.hi = 0.0

        def forward(self, x, y):
            self.lo = min(self.lo, x.min().item())
            self.hi = max(self.hi, x.max().item())
            scale = (self.hi - self.lo) / 255 + 1e-8
            q = torch.clamp(torch.round((x - self.lo) / scale), 0, 255)
            xq = x + (q * scale + self.lo - x).detach()
            return self.lin(xq) * y.unsqueeze(-1)
    """
)

# the number read into a local first, then accumulated; the state read by the output
LOCAL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 1)
            self.running = 1.0

        def forward(self, x, y):
            loss = F.smooth_l1_loss(self.lin(x).squeeze(-1), y)
            v = loss.item()
            self.running = 0.8 * self.running + 0.2 * v
            return loss / self.running
    """
)

# Burgess et al.'s KL capacity, raised while training when the KL passes half of it: a
# guarded update (the test mixes a Python flag and the tensor's number)
CAPACITY = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, c_step=0.5, c_max=1.2):
            super().__init__()
            self.enc = nn.Linear(6, 4)
            self.c_step = c_step
            self.c_max = c_max
            self.capacity = 0.0

        def forward(self, x, y):
            mu, logvar = self.enc(x).chunk(2, dim=-1)
            kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
            if self.training and kl.item() > self.capacity * 0.5:
                self.capacity = min(self.capacity + self.c_step, self.c_max)
            return (kl - self.capacity).abs() + y.sum()
    """
)

# the best loss so far kept when a batch beats it (no Python flag): a guarded update
BEST = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 1)
            self.best = 10.0
            self.margin = 0.1

        def forward(self, x, y):
            loss = F.mse_loss(self.lin(x).squeeze(-1), y)
            if loss.item() < self.best - self.margin:
                self.best = max(self.best * 0.5, 0.25)
            return loss * self.best
    """
)

CASES = {
    "ema": EMA,
    "amax": AMAX,
    "minmax": MINMAX,
    "local": LOCAL,
    "capacity": CAPACITY,
    "best": BEST,
}
STATE = {
    "ema": ("scale_a", "scale_b"),
    "amax": ("amax",),
    "minmax": ("lo", "hi"),
    "local": ("running",),
    "capacity": ("capacity",),
    "best": ("best",),
}

# INVALID: a part of the test reads the running value as a Python number
MIXED = CAPACITY.replace(
    "if self.training and kl.item() > self.capacity * 0.5:",
    "if self.training and kl.item() > self.capacity * 0.5 and self.capacity < 1.0:",
)

# INVALID: the guarded body also reports (not only updates of the running value)
REPORTS = CAPACITY.replace(
    "            self.capacity = min(self.capacity + self.c_step, self.c_max)\n",
    "            self.capacity = min(self.capacity + self.c_step, self.c_max)\n"
    "            print(self.capacity)\n",
)
assert REPORTS != CAPACITY and MIXED != CAPACITY

# INVALID: the range is a number-only argument of `torch.histc`
HISTC = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 6)
            self.register_buffer("hist", torch.zeros(8))
            self.lo = 0.0

        def forward(self, x, y):
            h = self.lin(x)
            self.lo = min(self.lo, h.min().item())
            self.hist += torch.histc(h.detach(), 8, min=self.lo, max=10.0)
            return h
    """
)

# INVALID: the statistic decides a Python `if` that raises
RAISES = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 1)
            self.ema = 0.0

        def forward(self, x, y):
            loss = F.mse_loss(self.lin(x).squeeze(-1), y)
            self.ema = 0.9 * self.ema + 0.1 * loss.item()
            if self.ema > 1e6:
                raise RuntimeError("diverged")
            return loss
    """
)

# INVALID: the statistic is a size (`topk`'s `k`)
SIZE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 4)
            self.width = 1.0

        def forward(self, x, y):
            s = self.lin(x)
            self.width = max(self.width, s.std().item())
            return torch.topk(s, k=int(self.width), dim=-1).values
    """
)


def _fix(tmp_path: Path, code: str) -> tuple[str, str]:
    fixed, reasons = fix_text(tmp_path, code, ("CL103", "CL501"))
    return fixed, " | ".join(reasons)


# ---------------------------------------------------------------------------- VALID (text)
def test_an_ema_read_by_the_loss_becomes_a_buffer(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, EMA)
    assert 'self.register_buffer("scale_a", torch.tensor(1.0), persistent=False)' in fixed
    assert 'self.register_buffer("scale_b", torch.tensor(1.0), persistent=False)' in fixed
    assert ".item()" not in fixed
    assert "(1 - self.momentum) * la.detach()" in fixed
    assert "return la / (self.scale_a + 1e-6) + lb / (self.scale_b + 1e-6)" in fixed


def test_a_running_max_is_a_clamp_of_the_buffer(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, AMAX)
    assert 'self.register_buffer("amax", torch.tensor(1e-4), persistent=False)' in fixed
    assert "self.amax = torch.clamp(self.amax, min=x.abs().max().detach())" in fixed
    assert "scale = self.qmax / self.amax" in fixed


def test_min_and_max_observers_feed_a_fake_quantization(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, MINMAX)
    assert "self.lo = torch.clamp(self.lo, max=x.min().detach())" in fixed
    assert "self.hi = torch.clamp(self.hi, min=x.max().detach())" in fixed


def test_a_number_read_into_a_local_then_accumulated(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, LOCAL)
    assert 'self.register_buffer("running", torch.tensor(1.0), persistent=False)' in fixed
    assert ".item()" not in fixed


def test_a_guarded_update_becomes_a_choice_made_by_the_tensor(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, CAPACITY)
    assert 'self.register_buffer("capacity", torch.tensor(0.0), persistent=False)' in fixed
    assert (
        "        if self.training:\n            self.capacity = torch.where(kl.detach() > "
        "self.capacity * 0.5, torch.clamp(self.capacity + self.c_step, max=self.c_max), "
        "self.capacity)\n"
    ) in fixed
    fixed, _ = _fix(tmp_path, BEST)
    assert (
        "        self.best = torch.where(loss.detach() < self.best - self.margin, "
        "torch.clamp(self.best * 0.5, min=0.25), self.best)\n"
    ) in fixed


# ---------------------------------------------------------------------------- INVALID
def test_a_test_that_reads_the_running_value_as_a_number_is_not_lowered(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, MIXED)
    assert "torch.where" not in fixed
    assert "is neither a Python flag nor the tensor's test" in why


def test_a_guarded_body_that_does_more_than_update_is_not_lowered(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, REPORTS)
    assert "torch.where" not in fixed
    assert 'register_buffer("capacity"' not in fixed


def test_a_number_only_argument_keeps_the_statistic_a_number(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, HISTC)
    assert 'register_buffer("lo"' not in fixed
    assert "`min=` argument of `torch.histc`" in why
    assert "must stay a Python number" in why


def test_a_python_if_that_raises_keeps_the_statistic_a_number(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, RAISES)
    assert 'register_buffer("ema"' not in fixed
    assert "`self.ema` is also read in `if self.ema > 1e6:`" in why


def test_a_size_keeps_the_statistic_a_number(tmp_path: Path) -> None:
    fixed, why = _fix(tmp_path, SIZE)
    assert 'register_buffer("width"' not in fixed
    assert "`self.width` is also read in" in why


# ---------------------------------------------------------------------------- torch
def _inputs(torch: Any) -> tuple[Any, ...]:
    return torch.randn(5, 6), torch.randn(5)


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_fixed_model_compiles_whole_and_keeps_outputs_grads_and_state(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    code = CASES[case]
    fixed, _ = _fix(tmp_path, code)
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "fix22s"), load_module(tmp_path / "b.py", "fix22s")
    calls = []
    for seed in range(3):
        torch.manual_seed(100 + seed)
        calls.append(_inputs(torch))

    def run(mod: Any, compiled: bool) -> tuple[list[Any], list[float]]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        # the break check sees the model as it is at its first call (a deep copy)
        fn = compile_without_break(model, calls[0]) if compiled else model
        got: list[Any] = []
        for inputs in calls:
            model.zero_grad()
            out = fn(*inputs)
            out.float().sum().backward()
            got.append(out.detach())
            got.extend(p.grad.clone() for p in model.parameters())
        return got, [float(getattr(model, s)) for s in STATE[case]]

    want, want_state = run(a, False)
    for compiled in (False, True):
        got, state = run(b, compiled)
        torch.testing.assert_close(got, want)
        assert state == pytest.approx(want_state, rel=1e-5)
    torch._dynamo.reset()


# the VALID cases break before the fix (what the rewrite removes is real)
test_the_originals_break = originals_break_test(
    CASES, lambda torch, case, seed: _inputs(torch), prefix="fix22s"
)
