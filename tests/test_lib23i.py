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
