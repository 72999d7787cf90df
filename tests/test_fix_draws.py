"""Python ``random`` draws in forward kept on Python's generator (CL205, ``codemods/draws.py``).

VALID: a gain augmentation under ``if self.training and random.random() < p:`` (a draw inside
the branch), a flip with an ``else``, mixup weights drawn with ``uniform``/``random`` and used in
arithmetic. INVALID: a draw deciding a ``return`` through an ``and`` (not lowered), a draw used
as a slice bound (a tensor there would be a data-dependent slice).

Marked ``torch``: the original breaks the graph; the rewrite compiles with ``fullgraph=True``,
and with Python's ``random`` reseeded before each call (as the dynamic runner does, the same
seed for both) its outputs equal the original's, call by call, uncompiled and compiled, over
seeds that take the branch and seeds that skip it.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_text, load_pair
from .torch_checks import compile_without_break

_HEAD = "import random\n\nimport torch\nfrom torch import nn\n\n\n"

VALID: dict[str, tuple[str, str]] = {
    "gain_in_branch": (
        _HEAD
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self, p=0.5):
                    super().__init__()
                    self.p = p
                    self.lin = nn.Linear(8, 4)

                def forward(self, wav):
                    if self.training and random.random() < self.p:
                        gain_db = random.uniform(-6.0, 6.0)
                        wav = wav * (10 ** (gain_db / 20))
                    return self.lin(wav)
            """
        ),
        "wav = torch.where(keep, wav * (10 ** (gain_db / 20)), wav)",
    ),
    "flip_else": (
        _HEAD
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 4)

                def forward(self, img):
                    if random.random() < 0.5:
                        x = img.flip(-1)
                    else:
                        x = img
                    return self.lin(x)
            """
        ),
        "x = torch.where(keep, img.flip(-1), img)",
    ),
    "mixup_weights": (
        _HEAD
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 4)

                def forward(self, x):
                    lam = random.uniform(0.2, 1.0)
                    jitter = random.random()
                    x = lam * x + (1.0 - lam) * x.flip(0)
                    return self.lin(x) * (1.0 + 0.01 * jitter)
            """
        ),
        "jitter = torch.as_tensor(random.uniform(0.0, 1.0), dtype=torch.float64)",
    ),
}

INVALID: dict[str, tuple[str, str]] = {
    "draw_decides_return": (
        _HEAD
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
                    drop = self.training and random.random() < 0.3
                    if drop:
                        return x
                    return x + self.lin(x)
            """
        ),
        "the drawn number is used in",
    ),
    "draw_as_slice_bound": (
        _HEAD
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(4, 4)

                def forward(self, x):
                    i = int(random.random() * 4)
                    return self.lin(x[:, i : i + 4])
            """
        ),
        "the drawn number is an argument of `int(",
    ),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_keeps_pythons_draws(tmp_path: Path, case: str) -> None:
    code, want = VALID[case]
    fixed, _ = fix_text(tmp_path, code, ("CL205",))
    assert want in fixed, fixed
    assert "random.random()" not in fixed and "torch.rand(" not in fixed, fixed
    assert "if random" not in fixed, fixed


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    fixed, reasons = fix_text(tmp_path, code, ("CL205",))
    assert "torch.as_tensor(random" not in fixed, fixed
    assert any(why in r for r in reasons), reasons


def test_a_slice_bound_draw_stays_a_python_int_beside_a_lowered_if(tmp_path: Path) -> None:
    """The `if` on a draw is lowered; a `randint` used as a slice bound is left as written."""
    code = INVALID["draw_as_slice_bound"][0].replace(
        "        i = int(random.random() * 4)\n",
        "        i = random.randint(0, 4)\n        if random.random() < 0.5:\n"
        "            x = x.flip(-1)\n",
    )
    fixed, _ = fix_text(tmp_path, code, ("CL205",))
    assert "x = torch.where(keep, x.flip(-1), x)" in fixed, fixed
    assert "i = random.randint(0, 4)" in fixed, fixed


# ---------------------------------------------------------------------------- with torch
def _calls(torch: Any, mod: Any, compiled: bool, seed: int, n: int = 3) -> list[Any]:
    torch.manual_seed(0)
    model = mod.Model()
    model.train()
    torch._dynamo.reset()
    x0 = torch.arange(32, dtype=torch.float32).reshape(4, 8) / 7.0
    fn = compile_without_break(model, (x0,)) if compiled else model
    outs = []
    for i in range(n):
        random.seed(f"{seed}:{i}")  # reseeded per call, the same for both copies
        x = torch.arange(32, dtype=torch.float32).reshape(4, 8) / 7.0
        outs.append(fn(x).detach())
    return outs


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_rewrite_compiles_whole_and_draws_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = VALID[case][0]
    fixed, _ = fix_text(tmp_path, code, ("CL205",))
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "draws")
    # the original breaks the graph (GB0007 at random.random)
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch._dynamo.reset()
        x0 = torch.arange(32, dtype=torch.float32).reshape(4, 8) / 7.0
        torch.compile(a.Model(), backend="eager", fullgraph=True)(x0)
    for seed in range(6):  # the branch taken on some calls and not on others
        want = _calls(torch, a, False, seed)
        for compiled in (False, True):
            for g, w in zip(_calls(torch, b, compiled, seed), want, strict=True):
                torch.testing.assert_close(g, w)
