"""Call-site sensitive reachability: conditions on parameters (``analysis.conds``), and library
mode's entry points (the package's public API under its defaults)."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst

from compilelint.static.analysis import conds as C
from tests.cli_invoke import invoke

MODEL = """\
import torch


def helper(x, event_fn=None, method="fast"):
    if event_fn is not None:
        if x.sum() > 0:
            return x
    if method == "slow":
        y = x.item()
    if method in ("odd", "slow"):
        x = x[x > 0]
    return x * 2


def other(x, flag=False):
    if flag:
        return x
    if x.max() > 1:
        return x
    return x


def third(x, mode):
    if mode == "a":
        return x.tolist()
    return x


class M(torch.nn.Module):
    def forward(self, x, mode):
        x = other(x, flag=True)
        x = third(x, mode)
        return helper(x{extra})
"""


def _lines(tmp_path: Path, text: str, *args: str) -> set[int]:
    (tmp_path / "m.py").write_text(text)
    code, out, err = invoke(
        ["check", "m.py", "--format", "json", "--no-cache", *args], cwd=tmp_path
    )
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"]}


def test_parse_conditions() -> None:
    def parse(src: str) -> tuple[list[object], list[object]]:
        body, orelse = C.parse(cst.parse_expression(src), lambda n: n in ("p", "q"))
        return [C.decode(c) for c in body], [C.decode(c) for c in orelse]

    assert parse("p is None") == ([("p", "is", None)], [("p", "isnot", None)])
    assert parse("not p") == ([("p", "falsy", None)], [("p", "truthy", None)])
    assert parse("p == 'rk4'") == ([("p", "eq", "rk4")], [("p", "ne", "rk4")])
    assert parse("p in ('a', 'b')") == ([("p", "in", ["a", "b"])], [("p", "notin", ["a", "b"])])
    assert parse("p and q is not None") == ([("p", "truthy", None), ("q", "isnot", None)], [])
    assert parse("p or q") == ([], [("p", "falsy", None), ("q", "falsy", None)])
    # not a parameter, or not a literal: nothing is known
    assert parse("x is None") == ([], [])
    assert parse("p == q") == ([], [])
    assert C.holds("rk4", "in", ["rk4", "euler"]) and not C.holds(None, "truthy", None)
    # ordered tests against a number, the literal on either side
    assert parse("p < 0") == ([("p", "lt", 0)], [("p", "ge", 0)])
    assert parse("1 < p") == ([("p", "gt", 1)], [("p", "le", 1)])
    assert parse("p >= 2.5") == ([("p", "ge", 2.5)], [("p", "lt", 2.5)])
    assert parse("p < 'a'") == ([], []) and parse("0 < p < 1") == ([], [])
    assert not C.holds(0.0, "lt", 0) and C.holds(0.0, "le", 0) and C.holds(3, "gt", 2)
    assert C.holds(None, "lt", 0) and C.holds("x", "ge", 1)  # not a number: undecided
    # isinstance against builtin types is decided on a literal; other names may be abstract
    assert parse("isinstance(p, (int, float))") == (
        [("p", "isinstance", ["int", "float"])],
        [("p", "notisinstance", ["int", "float"])],
    )
    assert not C.holds(None, "isinstance", ["int"]) and C.holds(True, "isinstance", ["int"])
    assert C.holds([1], "isinstance", ["tuple"]) and C.holds(None, "notisinstance", ["list"])
    assert C.holds(1, "isinstance", ["Number"]) and C.holds(None, "isinstance", ["Tensor", "int"])


def test_code_under_a_condition_no_caller_satisfies_is_not_traced(tmp_path: Path) -> None:
    lines = _lines(tmp_path, MODEL.format(extra=""))
    # helper's event branch (event_fn left at None), method == "slow" (default "fast"), the
    # rest of `other` after `if flag: return` (flag=True): never run, never traced
    assert not lines & {6, 9, 11, 18}
    # third(x, mode): `mode` is the model's input, unknown: kept
    assert 25 in lines


def test_a_caller_passing_a_value_that_satisfies_the_condition_keeps_it(tmp_path: Path) -> None:
    lines = _lines(tmp_path, MODEL.format(extra=', event_fn=print, method="slow"'))
    assert {9, 11} <= lines
    # `event_fn=print`: not a literal, so `event_fn is not None` may hold
    assert 6 in lines


FORWARDED = """\
from typing import Optional

import torch


def inner(x, ignore_index: Optional[int] = None):
    if ignore_index is not None:
        x = x[x != ignore_index]
    return x


def outer(x, ignore_index: Optional[int] = None):
    return inner(x, ignore_index=ignore_index)


def rebinds(x, ignore_index: Optional[int] = None):
    ignore_index = pick(x)
    return inner(x, ignore_index)


class M(torch.nn.Module):
    def forward(self, x):
        return {call}
"""


def test_a_parameter_passed_on_holds_what_the_callers_callers_pass(tmp_path: Path) -> None:
    # `outer` passes its own `ignore_index` on: left at None by the only caller, so `inner`'s
    # masking branch never runs (a parameter annotated with a plain type included)
    assert 8 not in _lines(tmp_path, FORWARDED.format(call="outer(x)"))
    assert 8 in _lines(tmp_path, FORWARDED.format(call="outer(x, ignore_index=3)"))
    # a parameter assigned before the call is not the caller's value any more
    assert 8 in _lines(tmp_path, FORWARDED.format(call="rebinds(x)"))


LIB = {
    "__init__.py": "from .layers import Block\nfrom .ops import solve\n",
    "layers.py": """\
import torch

from ._impl import kernel


class Block(torch.nn.Module):
    def __init__(self, fused: bool = False):
        super().__init__()
        self.fused = fused

    def forward(self, x, checks=False):
        if checks:
            x = x[x > 0]
        return kernel(x)

    def debug(self, x):
        return x.tolist()
""",
    "ops.py": """\
import torch


def solve(y, method=None, events=None):
    if events is not None:
        if events(y) > 0:
            return y
    return y.sum()


class Helper:
    def run(self, x):
        return x.item()
""",
    "tests/__init__.py": "",
    "tests/test_ops.py": """\
import torch


def test_item(x):
    return x.item()
""",
    "_impl.py": """\
import torch


def kernel(x):
    return x[x.nonzero()]


def unused(x):
    return int(x.sum())
""",
}


def test_library_mode_entries_are_the_public_api_under_defaults(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "tests").mkdir()
    for name, text in LIB.items():
        (pkg / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')

    def found(*args: str) -> dict[tuple[str, int], str]:
        code, out, err = invoke(
            ["check", "mylib", "--format", "json", "--no-cache", *args], cwd=tmp_path
        )
        assert code in (0, 1), err
        return {
            (Path(f["path"]).name, f["line"]): f["message"] for f in json.loads(out)["findings"]
        }

    got = found()
    # Block.forward (an exported nn.Module) reaches the private kernel's nonzero
    assert ("_impl.py", 5) in got
    # under defaults: `checks=False`, `events=None` do not run their branches; public methods
    # that are not an entry (Block.debug, Helper.run), unexported code and the package's test
    # suite are not reported
    assert set(got) == {("_impl.py", 5)}
    latent = found("--report-untraced")
    assert ("_impl.py", 5) in latent and "latent" not in latent[("_impl.py", 5)]
    for where in (("layers.py", 13), ("layers.py", 17), ("ops.py", 6), ("ops.py", 13)):
        assert where in latent and "latent: no public entry point" in latent[where], where


def test_library_mode_latent_findings_are_marked_in_json_and_sarif(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "tests").mkdir()
    for name, text in LIB.items():
        (pkg / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')

    def run(*args: str) -> dict:  # type: ignore[type-arg]
        code, out, err = invoke(["check", "mylib", "--no-cache", *args], cwd=tmp_path)
        assert code in (0, 1), err
        return json.loads(out)  # type: ignore[no-any-return]

    default = run("--format", "json")["findings"]
    # by default only what an entry point reaches under its defaults, none of it latent
    assert [(Path(f["path"]).name, f["line"]) for f in default] == [("_impl.py", 5)]
    assert "latent" not in default[0]
    shown = {
        (Path(f["path"]).name, f["line"]): f.get("latent")
        for f in run("--format", "json", "--report-untraced")["findings"]
    }
    assert shown[("_impl.py", 5)] is None
    assert shown[("ops.py", 6)] and shown[("ops.py", 6)].startswith("latent: no public entry")
    results = run("--format", "sarif", "--report-untraced")["runs"][0]["results"]
    marked = {
        (
            Path(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).name,
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        ): r["properties"].get("latent")
        for r in results
    }
    assert marked[("_impl.py", 5)] is None
    assert marked[("ops.py", 6)].startswith("latent: no public entry")


def test_library_mode_a_modules_script_main_is_not_an_entry(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .nets import main, api\n")
    (pkg / "nets.py").write_text(
        """\
import torch


def api(x):
    return x.item()


def main(n=3):
    x = torch.randn(n)
    print(x.tolist())


if __name__ == "__main__":
    main()
    api(torch.ones(1))
"""
    )
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {f["line"] for f in json.loads(out)["findings"]}
    # `main()` runs the file as a script (no arguments it needs): not the package's API; `api`
    # is called there too, with an argument, and stays an entry
    assert 5 in lines and not lines & {10, 11}


def test_library_mode_a_modules_all_names_its_public_api(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import *\n")
    (pkg / "ops.py").write_text(
        """\
import torch

__all__ = ["api"]
__all__ += ["more"]


def api(x):
    return x.item()


def more(x):
    return x.tolist()


def helper(x):
    return int(x.sum())
"""
    )
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {f["line"] for f in json.loads(out)["findings"]}
    # `helper` is public by its name but not in the module's `__all__`: not an entry point
    assert {8, 12} <= lines and 16 not in lines


def test_library_mode_a_parameter_used_as_an_object_or_size_is_no_tensor_input(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import grid, integrate, make_mask, solve\n")
    (pkg / "ops.py").write_text(
        """\
import torch


def check(sde, y):
    if sde.noise_type == "diagonal":
        return y
    return y


def integrate(sde, y):
    y = check(sde, y)
    return y


def make_mask(features):
    if features % 2 == 0:
        return torch.zeros(features)
    return torch.ones(features)


def solve(y):
    if y.sum() > 0:
        return y
    return y


def grid(h, w):
    if h > w:
        return torch.ones((h, w)).triu(w - h)
    return torch.ones(size=(h, w))
"""
    )
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {f["line"] for f in json.loads(out)["findings"]}
    # `sde.noise_type` (read in a callee `integrate` passes `sde` on to) and `torch.zeros(features)`:
    # the user passes an object and an int there, so neither branch is on a tensor; `solve`'s is;
    # `torch.ones((h, w))`: sizes in a tuple
    assert 22 in lines and not lines & {5, 16, 28}


def test_library_mode_a_module_the_package_keeps_to_itself_is_no_entry(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .nets import Net\n")
    (pkg / "nets.py").write_text(
        """\
import torch
from torch import nn


class _Inner(nn.Module):
    def forward(self, x):
        return x.item()


class _Unused(nn.Module):
    def forward(self, x):
        return x.tolist()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()

    def forward(self, x):
        return self.inner(x)
"""
    )

    def lines(cfg: str, *args: str) -> dict[int, object]:
        (tmp_path / "pyproject.toml").write_text(cfg)
        code, out, err = invoke(
            ["check", "mylib", "--format", "json", "--no-cache", *args], cwd=tmp_path
        )
        assert code in (0, 1), err
        return {f["line"]: f.get("latent") for f in json.loads(out)["findings"]}

    # without `entries`, a package with module forwards is scanned as a model: every forward
    assert set(lines("")) == {7, 12}
    # library mode: `_Inner` is reached from the exported `Net`; `_Unused`, a private module
    # class no entry calls, is not an entry for being a module: its forward is latent
    lib = '[tool.compilelint]\nentries = ["*"]\n'
    assert lines(lib) == {7: None}
    latent = lines(lib, "--report-untraced")
    assert latent[7] is None and str(latent[12]).startswith("latent: no public entry")
    # `entries` narrows the roots to what it names: no module's forward is a root by itself
    assert lines('[tool.compilelint]\nentries = ["mylib.Net.forward"]\n') == {7: None}
    assert lines('[tool.compilelint]\nentries = ["nothing"]\n') == {}


def test_library_mode_a_shared_base_forward_runs_the_named_entries_overrides(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .metrics import Mean, Max\n")
    (pkg / "metrics.py").write_text(
        """\
import torch
from torch import nn


class Metric(nn.Module):
    def forward(self, x):
        return self.update(x)


class Mean(Metric):
    def update(self, x):
        return x.mean().item()


class Max(Metric):
    def update(self, x):
        return x.max().tolist()
"""
    )

    def lines(entries: str) -> set[int]:
        (tmp_path / "pyproject.toml").write_text(f"[tool.compilelint]\nentries = {entries}\n")
        code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    # both classes' entry is `Metric.forward`; it runs the `update` of the classes named
    assert lines('["*"]') == {12, 17}
    assert lines('["mylib.Mean.*"]') == {12}
    assert lines('["mylib.Max.forward"]') == {17}


def test_an_ordered_test_on_a_parameter_decides_the_branch(tmp_path: Path) -> None:
    src = """\
import torch


def score(x, power=0.0):
    if power < 0:
        return x.item()
    elif power > 1:
        return x.tolist()
    return x


class M(torch.nn.Module):
    def forward(self, x):
        return score(x{extra})
"""
    assert not _lines(tmp_path, src.format(extra=""))
    assert _lines(tmp_path, src.format(extra=", power=-1")) == {6}
    assert _lines(tmp_path, src.format(extra=", power=2")) == {8}


def test_library_mode_a_registry_key_defaulted_to_none_takes_what_none_becomes(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import solve, solve_by_name\n")
    (pkg / "_misc.py").write_text(
        "def check(t, method):\n"
        "    if method is None:\n"
        '        method = "slow"\n'
        "    return t, method\n"
    )
    (pkg / "ops.py").write_text(
        """\
import torch

from ._misc import check


class Fast:
    def __init__(self, t):
        self.t = t.tolist()


class Slow:
    def __init__(self, t):
        self.t = t.item()


SOLVERS = {"fast": Fast, "slow": Slow}


def solve(t, method=None):
    t, method = check(t, method)
    return SOLVERS[method](t)


def solve_by_name(t, method="slow"):
    return SOLVERS[method](t)
"""
    )
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    got = [(Path(f["path"]).name, f["line"]) for f in json.loads(out)["findings"]]
    # entries run under their defaults: `solve` picks "slow" (None re-bound by the helper it
    # goes through), `solve_by_name` its literal default "slow": Fast's `.tolist()` never runs
    assert got == [("ops.py", 13)]


ATTR_LIB = """\
import torch


def _compute(a, adjusted=0):
    if adjusted != 0:
        return a.item()
    return a


class Base(torch.nn.Module):
    def forward(self, a):
        return _compute(a, self.adjusted)


class Score(Base):
    def __init__(self, adjusted: int = 0) -> None:
        super().__init__()
        if adjusted < 0:
            raise ValueError(adjusted)
        self.adjusted = adjusted
{more}"""


def test_library_mode_an_attribute_set_once_from_a_constructor_default_decides(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import Score\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')

    def lines(more: str) -> set[int]:
        (pkg / "ops.py").write_text(ATTR_LIB.format(more=more))
        code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    # the entry class is built under its defaults: `self.adjusted` is 0, `adjusted != 0` is not
    assert lines("") == set()
    # assigned again elsewhere, or by a subclass: not decided
    again = "\n    def reset(self, n: int) -> None:\n        self.adjusted = n\n"
    assert lines(again) == {6}
    sub = "\n\nclass Sub(Score):\n    def __init__(self) -> None:\n        super().__init__(3)\n"
    assert lines(sub) == {6}


def test_library_mode_a_test_on_an_attribute_set_once_is_decided(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import Quantizer\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    src = """\
import torch


class Quantizer(torch.nn.Module):
    def __init__(self, threshold: int = 0, dropout=False) -> None:
        super().__init__()
        self.threshold = threshold
        self.dropout = dropout
        self.checkpointing = False

    def forward(self, x):
        if self.threshold != 0:
            x = x[x.nonzero()]
        if self.checkpointing:
            x = x.tolist()
        if not self.dropout:
            return x
        return x.item()
{more}"""

    def lines(more: str) -> set[int]:
        (pkg / "ops.py").write_text(src.format(more=more))
        code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    # built under its defaults: `threshold` is 0 and `dropout` False, so neither runs; a flag
    # set to a literal is state others may toggle (`model.checkpointing = True`): kept
    assert lines("") == {15}
    # an attribute assigned again is not decided
    assert lines("\n    def train_more(self):\n        self.dropout = True\n") == {15, 18}


def test_parse_input_tensor_tests() -> None:
    def parse(src: str) -> tuple[list[tuple[str, str, object]], list[tuple[str, str, object]]]:
        body, orelse = C.parse(cst.parse_expression(src), lambda n: n in ("x", "y"))
        return [C.decode(c) for c in body], [C.decode(c) for c in orelse]

    assert parse("not x.is_floating_point()") == (
        [("x", "intdtype", None)],
        [("x", "floatdtype", None)],
    )
    assert parse("x.dtype == torch.float16")[0] == [("x", "halfdtype", None)]
    assert parse("x.dtype in (torch.float16, torch.bfloat16)")[0] == [("x", "halfdtype", None)]
    assert parse("x.dtype in (torch.float32, torch.float64)") == ([], [])
    assert parse("x.device != y.device")[0] == [("x", "otherdevice", "y")]
    assert parse("z.is_floating_point()") == ([], [])  # not a parameter


def test_library_mode_integer_and_half_input_branches_are_latent(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import score\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    (pkg / "ops.py").write_text(
        """\
import torch


def _check(preds, target):
    if not preds.is_floating_point():
        torch.unique(preds).tolist()
    if preds.dtype in (torch.float16, torch.bfloat16):
        preds.item()
    if target.is_floating_point():
        raise ValueError("labels expected")
    return target.sum().item()


def _labels(preds):
    if not preds.is_floating_point():
        return preds.item()
    return preds


def score(preds, target):
    _check(preds, target)
    return _labels(preds.argmax(-1))
"""
    )

    def lines(*extra: str) -> set[int]:
        code, out, err = invoke(
            ["check", "mylib", "--format", "json", "--no-cache", *extra], cwd=tmp_path
        )
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    # the entry's inputs are float32 tensors on one device: the integer and half branches are
    # latent; the rest after a dtype test that raises still runs (11); a tensor the library
    # makes itself (`argmax`) may be an integer one (16)
    assert lines() == {11, 16}
    assert {6, 8} <= lines("--report-untraced")


def test_a_tensor_test_the_python_operands_short_circuit_is_dead(tmp_path: Path) -> None:
    """`max_fpr is None or fpr.sum() == 0` (torchmetrics' AUROC): dynamo evaluates the Python
    operand first, on the value it specialises on; with `max_fpr` None the tensor part is never
    traced. The operands before a tensor part are conditions on the finding, as an `if` around
    it would be (`and`: true, `or`: false), also for `all(...)` on tensors."""
    text = """\
import torch


def compute(fpr, max_fpr=None, zero_division=0.0, thresholds=None):
    if zero_division == "warn" and torch.any(fpr == 0):
        fpr = fpr + 1
    if isinstance(thresholds, list) and not all(t < fpr for t in thresholds):
        fpr = fpr + 2
    if (max_fpr is not None and fpr.any()) or fpr.all():
        fpr = fpr + 3
    if isinstance(zero_division, float) and fpr.any():
        fpr = fpr + 4
    if max_fpr is None or fpr.sum() == 0:
        return fpr
    return fpr


class M(torch.nn.Module):
    def forward(self, x):
        return compute(x{extra})
"""
    assert _lines(tmp_path, text.format(extra="")) == {9, 11}
    got = _lines(tmp_path, text.format(extra=', 0.5, "warn", [0.5]'))
    assert got == {5, 7, 9, 13}


def test_library_mode_warnings_in_a_branch_are_latent(tmp_path: Path) -> None:
    """A library warns (or logs) in a branch on inputs it considers unusual (torchsde's
    `if ta < self._start: warnings.warn(...)`): library mode, which calls its entries as a user
    first does, leaves those latent; an unconditional warning, and the same code reached from a
    user's own file, are reported."""
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import solve\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    (pkg / "ops.py").write_text(
        """\
import logging
import warnings

import torch

logger = logging.getLogger(__name__)


def solve(y, t0: float, t1: float, **unused):
    t0 = max(t0, 0.0)
    if t0 > t1:
        warnings.warn("t0 after t1")
    if len(unused) > 0:
        logger.warning("unused %s", unused)
    try:
        y = y.exp()
    except RuntimeError:
        warnings.warn("overflow")
    warnings.warn("solve is deprecated")
    return y
"""
    )

    def lines(*extra: str) -> set[int]:
        code, out, err = invoke(
            ["check", "mylib", "--format", "json", "--no-cache", *extra], cwd=tmp_path
        )
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    assert lines() == {19}
    assert lines("--report-untraced") >= {12, 14, 18, 19}


def test_library_mode_a_flag_computed_from_constructor_defaults_is_decided(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import Quantizer\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    (pkg / "ops.py").write_text(
        """\
import torch


class Quantizer(torch.nn.Module):
    def __init__(self, dropout=False, n=4, threshold=0, keep=False) -> None:
        super().__init__()
        self.dropout = dropout and n > 1
        self.expire = threshold > 0
        self.keep = not keep

    def forward(self, x):
        drop = self.training and self.dropout
        if drop:
            x = x[x.nonzero()]
        if self.expire:
            x = x.tolist()
        if not self.keep:
            return x
        return x.item()
"""
    )
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    # built under its defaults: `dropout and n > 1` is False (so is `drop`, a local bound to a
    # test of it), `threshold > 0` is False, `not keep` is True: only the last line is reached
    assert {f["line"] for f in json.loads(out)["findings"]} == {19}
    assert C.evaluate(["and", ["p", "a"], ["c", "n", "gt", 1]], {"a": [True], "n": [0, 3]}) == [
        False,
        True,
    ]
    assert C.evaluate(["or", ["p", "a"], ["p", "b"]], {"a": [True]}) == [True]
    assert C.evaluate(["or", ["p", "a"], ["p", "b"]], {"a": [False]}) is None


def test_a_breaking_method_of_an_object_built_in_traced_code_breaks_the_call(
    tmp_path: Path,
) -> None:
    src = """\
import torch


class Stepper:
    def __init__(self, y):
        self.y = y

    def run(self, x):
        if x.sum() > 0:
            x = x * 2
        return x + self.y

    def clean(self, x):
        return x + self.y


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kept = Stepper(torch.ones(4))

    def forward(self, x):
        s = Stepper(x)
        x = s.clean(x)
        x = self.kept.run(x)
        out = s.run(x)
        return s.run(out)
"""
    # the object built in `forward`: its breaking method breaks the call too, the first such
    # call only (torch runs the rest of the frame eagerly); not the clean method, not an object
    # held in `self.<attr>` (built before tracing)
    assert _lines(tmp_path, src, "--select", "CL116") == {26}


def test_the_rest_of_a_function_after_a_reconstruction_failure_runs_eagerly(
    tmp_path: Path,
) -> None:
    """torch 2.13 runs the rest of a frame eagerly after a reconstruction failure (CL116) at a
    call every run of the function reaches: a tensor test on a later line of that function
    does not break (torchdiffeq's `odeint_dense`: `while next_t > solver.rk_state.t1:` after
    `solver._before_integrate(t)`), the call's own arguments are traced before it, and a
    function called later runs as a frame of its own (its break stays). After a failure in a
    branch only, the later lines are kept."""
    src = """\
import torch


class Stepper:
    def __init__(self, y):
        self.y = y

    def run(self, x):
        if x.sum() > 0:
            x = x * 2
        return x + self.y


def helper(x):
    if x.max() > 1:
        return x - 1
    return x


class M(torch.nn.Module):
    def forward(self, x, flag: bool = True):
        s = Stepper(x)
        out = s.run(x.tolist() and x)
        if x.mean() > 0:
            out = out + 1
        n = x.item()
        return helper(x) * n + out


class B(torch.nn.Module):
    def forward(self, x, flag: bool = True):
        s = Stepper(x)
        if x.shape[0] > 2:
            x = s.run(x)
        if x.mean() > 0:
            x = x + 1
        return x
"""
    # 9: the method's own break; 15: `helper`, a frame of its own; 23: the failure and its
    # argument's `.tolist()`; not 24 or 26 (eager). In `B` the failure is in a branch: 35 stays
    assert _lines(tmp_path, src) == {9, 15, 23, 34, 35}


EXISTS_MODEL = """\
import torch


def exists(v):
    \"\"\"Whether a value was given.\"\"\"
    return v is not None


def missing(v):
    return v is None


def helper(x, mask=None, cache=None):
    if exists(mask):
        x = x * int(x.sum())
    if not exists(cache):
        return x
    return x[x.nonzero()]


def shadowed(x, exists=None):
    if exists(x):
        x = x.tolist()
    return x


class M(torch.nn.Module):
    def forward(self, x):
        x = shadowed(x)
        return helper(x{extra})
"""


def test_a_none_test_helper_decides_like_is_not_none(tmp_path: Path) -> None:
    # `exists(mask)` with `def exists(v): return v is not None` in the module is `mask is not
    # None`: dead when every caller leaves `mask` at None, as the plain test is
    def fn(src: str) -> str | None:
        return C.none_test_function(cst.parse_statement(src))

    assert fn("def exists(v):\n    return v is not None\n") == "isnot"
    assert fn("def missing(v, d=1):\n    return v is None\n") == "is"
    assert fn("def f(v, w):\n    return w is not None\n") is None  # not the first parameter
    assert fn("def f(v):\n    x = 1\n    return v is not None\n") is None
    assert fn("@cache\ndef f(v):\n    return v is not None\n") is None

    def parse(src: str) -> tuple[list[object], list[object]]:
        body, orelse = C.parse(
            cst.parse_expression(src),
            lambda n: n == "p",
            none_test={"exists": "isnot"}.get,
        )
        return [C.decode(c) for c in body], [C.decode(c) for c in orelse]

    assert parse("exists(p)") == ([("p", "isnot", None)], [("p", "is", None)])
    assert parse("not exists(p)") == ([("p", "is", None)], [("p", "isnot", None)])
    assert parse("exists(q)") == ([], []) and parse("other(p)") == ([], [])

    # helper's masked branch (mask None) is not traced; the rest after `if not exists(cache):
    # return` is dead (cache None); `exists` shadowed by a parameter decides nothing
    lines = _lines(tmp_path, EXISTS_MODEL.format(extra=""))
    assert 23 in lines and not lines & {15, 18}
    assert {15, 18, 23} <= _lines(tmp_path, EXISTS_MODEL.format(extra=", mask=x, cache=x"))


def test_library_mode_an_attribute_chosen_by_a_none_test_is_decided(tmp_path: Path) -> None:
    # `self.opt = opt(...) if exists(opt) else None` under `opt=None`: the attribute is None, so
    # `if not exists(self.opt): return` ends the method and `if self.norm is not None:` (a
    # module built only when `use_norm`) is dead; a caller-visible object keeps both
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .ops import Quantizer\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    src = """\
import torch


def exists(v):
    return v is not None


class Quantizer(torch.nn.Module):
    def __init__(self, opt=None, use_norm=False) -> None:
        super().__init__()
        self.opt = opt(self.parameters()) if exists(opt) else None
        self.norm = torch.nn.LayerNorm(4) if use_norm else None

    def forward(self, x):
        if self.norm is not None:
            x = x[x.nonzero()]
        self.update(x)
        return x

    def update(self, x):
        if not exists(self.opt):
            return
        x.tolist()
{more}"""

    def lines(more: str) -> set[int]:
        (pkg / "ops.py").write_text(src.format(more=more))
        code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    assert lines("") == set()
    # built by a subclass with other arguments: not decided
    sub = "\n\nclass Sub(Quantizer):\n    def __init__(self) -> None:\n        super().__init__(use_norm=True)\n"
    assert {16} <= lines(sub)
    tree = C.expr_tree(
        cst.parse_expression("f(p) if exists(p) else None"),
        lambda n: n == "p",
        {"exists": "isnot"}.get,
    )
    assert tree == ["if", ["c", "p", "isnot", None], ["o"], ["l", None]]
    assert C.evaluate(tree, {"p": [None]}) == [None]
    got = C.evaluate(tree, {"p": [None, 1]})
    assert got is not None and None in got and C.OBJECT in got
    assert C.holds(C.OBJECT, "isnot", None) and C.holds(C.OBJECT, "truthy", None)  # undecided


def test_keywords_passed_through_a_dict_are_call_site_values(tmp_path: Path) -> None:
    # `step(x, **kw)` with `kw = dict(flag=False)`: `flag` is False in `step`, the explicit
    # keywords of a `**kwargs` call are exact; a dict changed in place or rebuilt from another
    # may hold any key: every parameter it may set is unknown
    src = """\
import torch


def step(x, flag=True, mode="a"):
    if flag:
        x = x[x.nonzero()]
    if mode == "b":
        x.tolist()
    return x


class M(torch.nn.Module):
    def forward(self, x, extra):
        kw = dict(flag=False)
{more}        return step(x, **kw)
"""
    # `kw` is bound once, to a dict of literal keys, and not changed: it holds `flag` only, so
    # `mode` is `step`'s default "a" (lib23i: `CallSite.kwalts`; before, `mode` stayed unknown
    # and line 8 was reported; torch does not break there: tests/test_lib23i.py)
    assert _lines(tmp_path, src.format(more="")) == set()
    assert _lines(tmp_path, src.format(more='        kw["flag"] = extra\n')) == {6, 8}
    assert _lines(tmp_path, src.format(more="        kw.update(extra)\n")) == {6, 8}
    assert _lines(tmp_path, src.format(more="        kw = dict(**kw, flag=extra)\n")) == {6, 8}
    assert _lines(tmp_path, src.format(more="        del kw['flag']\n")) == {6, 8}
    # a dict from elsewhere: every parameter it may set is unknown
    assert _lines(tmp_path, src.format(more="        kw = extra\n")) == {6, 8}


def test_a_parameter_re_bound_under_a_test_the_callers_refute_still_decides(
    tmp_path: Path,
) -> None:
    # diffusers' `randn_tensor`: `if isinstance(generator, list): generator = generator[0]`,
    # then `randn(..., generator=generator)`; `if isinstance(scale, (list, tuple)): scale =
    # scale[0]`, then `if scale is not None:`. Under the callers' `None` the re-binding never
    # runs, so the later tests are about the caller's value; a re-binding that may run (the
    # caller passes a list, or it is unconditional, or under a test not on parameters) keeps
    # the finding
    src = """\
import torch


def helper(x, scale=None, generator=None):
    if isinstance(generator, list):
        generator = generator[0]
    noise = torch.randn(x.shape, generator=generator)
    if isinstance(scale, (list, tuple)):
        scale = scale[0]
{more}    if scale is not None:
        x = x * scale
        if x.max() > 1:
            x = x / 2
    return x + noise


class M(torch.nn.Module):
    def forward(self, x):
        return helper(x{args})
"""
    assert _lines(tmp_path, src.format(more="", args="")) == set()
    got = _lines(tmp_path, src.format(more="", args=", scale=[2.0], generator=[None]"))
    assert got == {7, 12}
    assert _lines(tmp_path, src.format(more="    scale = 2.0\n", args="")) == {13}
    more = "    if x.sum() > 0:\n        scale = 2.0\n"
    assert _lines(tmp_path, src.format(more=more, args="")) == {10, 14}


def test_library_mode_a_parameter_a_checking_helper_hands_back_still_decides(
    tmp_path: Path,
) -> None:
    # torchdiffeq's `odeint`: `..., event_fn, ... = _check_inputs(..., event_fn, ...)`, whose
    # re-bindings of `event_fn` all sit under `if event_fn is not None:`, then
    # `solver.integrate_until_event(...)` (a call through an object library mode adds) under
    # `if event_fn is not None`: dead under the entry's default `event_fn=None`
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .api import solve\n")
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    src = """\
import torch


def _wrap(f):
    return f


def _check(y, event_fn):
    if event_fn is not None:
        event_fn = _wrap(event_fn)
{more}    return y, event_fn


class Solver:
    def __init__(self, y):
        self.y = y

    def integrate(self):
        return self.y * 2

    def until_event(self, event_fn):
        print("event")
        return self.y


def solve(y, event_fn=None):
    y, event_fn = _check(y, event_fn)
    solver = Solver(y)
    if event_fn is None:
        return solver.integrate()
    return solver.until_event(event_fn)
"""

    def lines(more: str) -> set[int]:
        (pkg / "api.py").write_text(src.format(more=more))
        code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
        assert code in (0, 1), err
        return {f["line"] for f in json.loads(out)["findings"]}

    assert lines("") == set()
    # a helper that may hand back something else: undecided, the event path is judged
    assert {23, 32} <= lines("    event_fn = _wrap(event_fn)\n")


def test_a_name_an_isinstance_test_narrows_to_a_number_is_no_tensor_there(
    tmp_path: Path,
) -> None:
    """In the body of `if isinstance(sigma, (int, float)):` (kornia's Gaussian kernels turn a
    number into a tensor so) `sigma` is a Python number whatever callers pass, so
    `float(sigma)` there reads no tensor (nor does what is computed from it there); so in
    the `else` of `if not isinstance(...)`. The body of `if not isinstance(mean, float):` and
    a test with a type that is not a number's (`list`) narrow nothing."""
    src = """\\
import torch


def kernel(sigma, mean=None):
    if isinstance(sigma, (int, float)):
        sigma = torch.tensor([[float(sigma)]])
    mean = 2.0 if mean is None else mean
    if isinstance(mean, (int, float)):
        mean = torch.full((1, 1), float(mean))
    if not isinstance(mean, float):
        n = float(mean)
    else:
        m = float(mean)
    if isinstance(sigma, int):
        sigma = sigma * 2
        k = float(sigma)
    return sigma * mean


def other(x):
    if isinstance(x, (int, list)):
        return float(x)
    return x


class M(torch.nn.Module):
    def forward(self, x):
        s = x.sum(0, keepdim=True)
        return kernel(s, s) + other(x)
"""
    assert _lines(tmp_path, src, "--select", "CL102") == {12, 23}
