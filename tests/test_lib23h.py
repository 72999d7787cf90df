"""Issue 23, round lib23h: a keyword a call leaves to the caller's own ``**kwargs``.

torchsde builds its solver through a factory (``solver_fn = methods.select(...)``, then
``solver_fn(sde=sde, ..., adaptive=adaptive)``); every solver's ``__init__`` passes its
``**kwargs`` on to ``BaseSDESolver.__init__`` (``super(Euler, self).__init__(sde=sde,
**kwargs)``), which stores ``self.adaptive = adaptive``. The parameter was unknown (left to a
``**kwargs`` dict), so ``if self.adaptive:`` decided nothing and the adaptive step's
``.item()`` (``adaptive_stepping.py:69``) was reported under ``sdeint``'s default
``adaptive=False``. A keyword a call leaves to the enclosing function's own ``**kwargs``
(passed on unchanged: not rebound, not changed in place before the call) now holds what that
function's callers pass by that keyword, or the callee's default where they leave it out.

Each static verdict comes with torch's own (``tests/torch_checks.py``, marked ``torch``).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from tests.cli_invoke import invoke

SOLVERS = """\
import torch


class Solver:
    def __init__(self, y0, adaptive=True, **kwargs):
        self.y0 = y0
        self.adaptive = adaptive

    def integrate(self, t):
        if self.adaptive:
            t = t * t.sum().item()
        return self.y0 * t


class Euler(Solver):
    def __init__(self, y0, **kwargs):
{change}        super(Euler, self).__init__(y0=y0, **kwargs)


class Midpoint(Solver):
    def __init__(self, y0, **kwargs):
        super(Midpoint, self).__init__(y0=y0, **kwargs)


def select(method):
    if method == "euler":
        return Euler
    return Midpoint


def sdeint(y0, t, method="euler", adaptive={default}):
    solver_fn = select(method)
    solver = solver_fn(y0=y0, adaptive=adaptive)
    return solver.integrate(t)
"""
ITEM_LINE = 11  # `t = t * t.sum().item()`


def _src(default: str = "False", change: str = "") -> str:
    return SOLVERS.format(default=default, change=change)


def _library_mode_lines(tmp_path: Path, src: str) -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._ops import sdeint\n")
    (pkg / "_ops.py").write_text(src)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"]}


def test_a_keyword_passed_on_through_kwargs_takes_the_callers_value(tmp_path: Path) -> None:
    # VALID: `sdeint(adaptive=False)` -> `Euler(**kwargs)` -> `Solver(adaptive)`: no `.item()`
    assert _library_mode_lines(tmp_path, _src()) == set()


def test_the_callers_true_value_keeps_the_finding(tmp_path: Path) -> None:
    # INVALID: the entry's default sends `adaptive=True` through the same dicts
    assert ITEM_LINE in _library_mode_lines(tmp_path, _src(default="True"))


@pytest.mark.parametrize(
    "change",
    [
        '        kwargs["adaptive"] = True\n',
        '        kwargs.pop("adaptive")\n',
        "        kwargs = dict(kwargs, adaptive=True)\n",
    ],
)
def test_a_dict_changed_before_the_call_is_not_read(tmp_path: Path, change: str) -> None:
    # INVALID: the `**kwargs` dict no longer holds only what the callers passed (`pop` leaves
    # `Solver`'s default True): the flag is unknown, the finding stays
    assert ITEM_LINE in _library_mode_lines(tmp_path, _src(change=change))


def _module(src: str, name: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    return mod


@pytest.mark.torch
@pytest.mark.parametrize(("default", "change", "want"), [
    ("False", "", set()),
    ("True", "", {ITEM_LINE}),
    ("False", '        kwargs["adaptive"] = True\n', {ITEM_LINE}),
])  # fmt: skip
def test_torch_agrees_on_the_forwarded_keyword(
    monkeypatch: pytest.MonkeyPatch, default: str, change: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23h_solvers"
    mod = _module(_src(default=default, change=change), name, monkeypatch)

    def run(t: object) -> object:
        return mod.sdeint(torch.ones(3), t)

    assert logged_break_lines(run, torch.randn(3), name) & {ITEM_LINE} == want


# ------------------------------------------------ untraced constructions through a subclass
LAYERS = """\
import torch


class Layers(torch.nn.Module):
    def __init__(self, dim, causal=False, check=True, **kwargs):
        super().__init__()
        self.causal = causal
        self.check = check

    def forward(self, x):
        if self.check:
            x = x * x.sum().item()
        if self.causal:
            x = x * x.max().item()
        return x


class Decoder(Layers):
    def __init__(self, **kwargs):
        super().__init__(causal={causal}, **kwargs)


class Wrapper(torch.nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.layers = Decoder(dim=dim{check})

    def forward(self, x):
        return self.layers(x)


class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = Layers(dim=4, check=False)

    def forward(self, x):
        return self.layers(x)
"""
CHECK_LINE, CAUSAL_LINE = 12, 14


def _layers(causal: str = "False", check: str = ", check=False") -> str:
    return LAYERS.format(causal=causal, check=check)


def _layers_lines(tmp_path: Path, src: str) -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._ops import Plain, Wrapper\n")
    (pkg / "_ops.py").write_text(src)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"]}


def test_a_subclass_init_hands_its_kwargs_to_the_base(tmp_path: Path) -> None:
    # VALID: `Decoder(dim=dim, check=False)` -> `Layers.__init__(causal=False, **kwargs)`,
    # and `Plain` builds `Layers(check=False)`: neither flag is ever true
    assert _layers_lines(tmp_path, _layers()) == set()


@pytest.mark.parametrize(
    ("causal", "check", "line"),
    [("True", ", check=False", CAUSAL_LINE), ("False", "", CHECK_LINE)],
)
def test_the_super_call_or_the_base_default_keeps_the_finding(
    tmp_path: Path, causal: str, check: str, line: int
) -> None:
    # INVALID: the super call passes `causal=True`; `Decoder(dim=dim)` leaves `check` to the
    # base's default True
    assert line in _layers_lines(tmp_path, _layers(causal, check))


@pytest.mark.torch
@pytest.mark.parametrize(("causal", "check", "want"), [
    ("False", ", check=False", set()),
    ("True", ", check=False", {CAUSAL_LINE}),
    ("False", "", {CHECK_LINE}),
])  # fmt: skip
def test_torch_agrees_on_the_subclass_construction(
    monkeypatch: pytest.MonkeyPatch, causal: str, check: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23h_layers"
    mod = _module(_layers(causal, check), name, monkeypatch)
    assert logged_break_lines(mod.Wrapper(), torch.randn(3), name) == want
    assert logged_break_lines(mod.Plain(), torch.randn(3), name) == set()


def test_a_second_dict_may_hold_the_keyword(tmp_path: Path) -> None:
    # INVALID: `super().__init__(y0=y0, **opts, **kwargs)`: `opts` may set `adaptive`
    src = _src().replace(
        "    def __init__(self, y0, **kwargs):\n        super(Euler, self).__init__(y0=y0, **kwargs)",
        "    def __init__(self, y0, extra=None, **kwargs):\n"
        "        opts = extra or {}\n"
        "        super(Euler, self).__init__(y0=y0, **opts, **kwargs)",
    )
    assert "**opts" in src
    assert ITEM_LINE in _library_mode_lines(tmp_path, src)
