"""Issue 23, round lib23i: code only NaN or infinite inputs reach.

torchcde's ``natural_cubic_coeffs(x)`` and ``linear_interpolation_coeffs(x)`` test
``if torch.isnan(x).any():`` on the user's path and only then call the missing-value fill
(``masked_select``, tensor slice bounds, branches on ``torch.isnan(x[0])``: 13 findings on
the dev3 probe, none a break torch reports for a finite path). Library mode judges its entry
points on the tensors a user's first call makes (float32, one device: the sixth round); they
are finite too, so a test that an input tensor holds NaN or infinity (``torch.isnan(x).any()``,
``torch.any(torch.isinf(x))``, ``not torch.isfinite(x).all()``, ``torch.isnan(x[0])``) is
false there and the code under it, the calls it makes included, is latent. The test itself
stays a finding (torch breaks on it). A tensor the library computes (``torch.log(x - 10)``)
may hold NaN: the code under its test stays; a model file judges any input, as before.

Second: normflows chooses its spline and its keywords by a branch (``spline_fn = ...``,
``spline_kwargs = {}`` / ``{"tails": self.tails, "tail_bound": self.tail_bound}``, then
``spline_fn(..., **spline_kwargs)``). A keyword taken from a local bound only to dicts of
literal keys holds each binding's value (or the callee's default where a binding lacks it); a
list passed for it (``tails=[...]``) equals no string; a class the package neither exports as an
entry nor builds contributes no construction.

Each static verdict comes with torch's own (``tests/torch_checks.py``, marked ``torch``).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from tests.cli_invoke import invoke

LIB = """\
import torch


def _fill(x):
    idx = x.nonzero()
    return x + idx.sum()


def coeffs(x, t=None):
    if t is not None:
        x = x * t
    {line}
    if {test}:
        x = _fill({arg})
        x = x + x.nonzero().sum()
    return x * 2
"""
TEST_LINE, FILL_LINE, BODY_LINE = 13, 5, 15

FORMS = [
    "torch.isnan(x).any()",
    "torch.any(torch.isinf(x))",
    "not torch.isfinite(x).all()",
    "bool(torch.isnan(x[0]).any())",
    "x.isnan().any()",
]


def _src(test: str, line: str = "pass", arg: str = "x") -> str:
    return LIB.format(test=test, line=line, arg=arg)


def _library_mode_lines(tmp_path: Path, src: str) -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._ops import coeffs\n")
    (pkg / "_ops.py").write_text(src)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")}


@pytest.mark.parametrize("test", FORMS)
def test_code_only_nan_inputs_reach_is_latent(tmp_path: Path, test: str) -> None:
    # VALID: the entry's input is finite: the fill and the body never run; the test stays
    got = _library_mode_lines(tmp_path, _src(test))
    assert TEST_LINE in got
    assert not got & {FILL_LINE, BODY_LINE}


@pytest.mark.parametrize(
    ("test", "line"),
    [
        ("torch.isnan(y).any()", "y = torch.log(x - 10)"),  # computed: NaN for any input
        ("torch.isnan(x).all()", "pass"),  # not read (true for an empty tensor)
        ("torch.isfinite(x).any()", "pass"),  # not read: the negation is not "all finite"
        ("torch.isnan(x).any()", "x = torch.log(x - 10)"),  # x re-bound first
    ],
)
def test_other_tests_keep_the_body(tmp_path: Path, test: str, line: str) -> None:
    # INVALID: the tested tensor may hold NaN (or the test is not one of "holds NaN"): the
    # body's `.nonzero()` stays a finding
    assert BODY_LINE in _library_mode_lines(tmp_path, _src(test, line=line))


def test_a_model_file_judges_any_input(tmp_path: Path) -> None:
    # INVALID for the rule's scope: a model file's forward is judged on any input (a NaN one
    # reaches the body), so the body's break stays
    (tmp_path / "model.py").write_text(
        "import torch\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if torch.isnan(x).any():\n"
        "            x = x + x.nonzero().sum()\n"
        "        return x\n\n\n"
        "m = torch.compile(M())\n"
    )
    code, out, err = invoke(["check", "model.py", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    assert 7 in {f["line"] for f in json.loads(out)["findings"]}


def _module(src: str, name: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    return mod


@pytest.mark.torch
@pytest.mark.parametrize(
    ("test", "line", "nan", "want"),
    [
        *[(t, "pass", False, {TEST_LINE}) for t in FORMS],
        ("torch.isnan(y).any()", "y = torch.log(x - 10)", False, {TEST_LINE, FILL_LINE, BODY_LINE}),
        ("torch.isnan(x).any()", "x = torch.log(x - 10)", False, {TEST_LINE, FILL_LINE, BODY_LINE}),
        ("torch.isnan(x).any()", "pass", True, {TEST_LINE, FILL_LINE, BODY_LINE}),
    ],
)
def test_torch_agrees_on_nan_tests(
    monkeypatch: pytest.MonkeyPatch, test: str, line: str, nan: bool, want: set[int]
) -> None:
    # a finite input: torch breaks on the test and never runs the body (no break there); a
    # computed tensor holding NaN, or a NaN input, runs it: both `.nonzero()` lines break
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23i_coeffs"
    mod = _module(_src(test, line=line), name, monkeypatch)
    x = torch.randn(4)
    if nan:
        x[0] = float("nan")
    assert logged_break_lines(mod.coeffs, x, name) & {TEST_LINE, FILL_LINE, BODY_LINE} == want


# ------------------------------------------------ keywords from a local dict chosen by a branch
SPLINES = """\
import torch


def plain(x, scale=1.0):
    return x * scale


def spline(x, tails="linear", bound=1.0):
    if tails == "circular":
        x = x + x.nonzero().sum()
    if bound > 10.0:
        x = x + x.nonzero().sum()
    return x * bound
"""
CIRCULAR_LINE, BOUND_LINE = 10, 12

FLOWS = """\
import torch

from . import _splines


class Flow(torch.nn.Module):
    def __init__(self, tails={tails}, bound=3.0):
        super().__init__()
        self.tails = tails
        self.bound = bound

    def forward(self, x):
        if self.tails is None:
            fn = _splines.plain
            kw = {{}}
        else:
            fn = _splines.spline
            kw = {{"tails": self.tails, "bound": {bound}}}
{change}        return fn(x, **kw)


class Periodic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = Flow(tails={periodic})

    def forward(self, x):
        return self.flow(x)
"""


def _flows(
    tails: str = '"linear"',
    bound: str = "self.bound",
    change: str = "",
    periodic: str = '["circular", "linear"]',
) -> str:
    return FLOWS.format(tails=tails, bound=bound, change=change, periodic=periodic)


def _flow_lines(tmp_path: Path, flows: str, exports: str = "Flow") -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._flows import {exports}\n")
    (pkg / "_flows.py").write_text(flows)
    (pkg / "_splines.py").write_text(SPLINES)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"] if f["path"].endswith("_splines.py")}


def test_keywords_of_a_local_dict_chosen_by_a_branch(tmp_path: Path) -> None:
    # VALID: `kw` is `{}` or `{"tails": self.tails, "bound": self.bound}`: `tails` is the
    # entry's "linear" (or the default), `bound` 3.0 (or 1.0): neither test holds; `Periodic`
    # is neither an entry nor built by the package, so its list never reaches `Flow`
    assert _flow_lines(tmp_path, _flows()) == set()


def test_a_list_is_no_string(tmp_path: Path) -> None:
    # VALID: the entry `Periodic` builds `Flow(tails=[...])`: a list never equals "circular"
    assert _flow_lines(tmp_path, _flows(), exports="Periodic") == set()


@pytest.mark.parametrize(
    ("kw", "exports", "line"),
    [
        ({"tails": '"circular"'}, "Flow", CIRCULAR_LINE),  # the entry's default
        ({"periodic": '"circular"'}, "Periodic", CIRCULAR_LINE),  # a built object's
        ({"bound": "30.0"}, "Flow", BOUND_LINE),  # a number the test holds for
        ({"change": '        kw["tails"] = "circular"\n'}, "Flow", CIRCULAR_LINE),  # changed
    ],
)
def test_what_the_dict_may_pass_keeps_the_finding(
    tmp_path: Path, kw: dict[str, str], exports: str, line: int
) -> None:
    # INVALID: the dict may pass "circular" or 30.0 (or was changed in place: unknown)
    assert line in _flow_lines(tmp_path, _flows(**kw), exports=exports)


@pytest.mark.torch
@pytest.mark.parametrize(
    ("kw", "entry", "want"),
    [
        ({}, "Flow", set()),
        ({}, "Periodic", set()),
        ({"tails": '"circular"'}, "Flow", {CIRCULAR_LINE}),
        ({"periodic": '"circular"'}, "Periodic", {CIRCULAR_LINE}),
        ({"bound": "30.0"}, "Flow", {BOUND_LINE}),
        ({"change": '        kw["tails"] = "circular"\n'}, "Flow", {CIRCULAR_LINE}),
    ],
)
def test_torch_agrees_on_the_dict_keywords(
    monkeypatch: pytest.MonkeyPatch, kw: dict[str, str], entry: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    pkg = types.ModuleType("lib23i_pkg")
    pkg.__path__ = []  # a package, for `from . import _splines`
    monkeypatch.setitem(sys.modules, "lib23i_pkg", pkg)
    splines = _module(SPLINES, "lib23i_pkg._splines", monkeypatch)
    pkg._splines = splines  # type: ignore[attr-defined]
    flows = types.ModuleType("lib23i_pkg._flows")
    flows.__package__ = "lib23i_pkg"
    monkeypatch.setitem(sys.modules, "lib23i_pkg._flows", flows)
    exec(compile(_flows(**kw), "<lib23i_flows>", "exec"), flows.__dict__)
    model = getattr(flows, entry)()
    got = logged_break_lines(model, torch.randn(4), "lib23i_pkg._splines")
    assert got & {CIRCULAR_LINE, BOUND_LINE} == want


STEP = """\
import torch


def step(x, flag=True, mode="a"):
    if flag:
        x = x[x.nonzero()]
    if mode == "b":
        x.tolist()
    return x


def forward(x, extra=None):
    kw = dict(flag=False)
{more}    return step(x, **kw)
"""


@pytest.mark.torch
@pytest.mark.parametrize(
    ("more", "want"),
    [("", set()), ('    kw["mode"] = "b"\n', {8})],
)
def test_torch_agrees_a_dict_of_literal_keys_leaves_the_default(
    monkeypatch: pytest.MonkeyPatch, more: str, want: set[int]
) -> None:
    # tests/test_conds.py's `kw = dict(flag=False)`: `mode` keeps its default "a", no break at
    # `x.tolist()` (VALID, silent); the dict changed to pass "b" breaks there (INVALID: the
    # static stage keeps the finding, the dict changed in place being unknown)
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23i_step"
    mod = _module(STEP.format(more=more), name, monkeypatch)
    assert logged_break_lines(mod.forward, torch.randn(4), name) & {6, 8} == want
