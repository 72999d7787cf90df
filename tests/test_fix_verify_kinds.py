"""The failure kinds of issue 22's held-out run, without torch: tuples ordered by a tensor key
(CL114), a branch whose sides call different submodules (CL101: proposed, zero vs ``None``
gradients), a Python flag or a tensor condition with an ``else`` (CL101), and the verifier's
words for a fixed model that torch.compile fails on, or that raises where it used to break."""

from __future__ import annotations

from pathlib import Path

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes
from compilelint.fix.textdiff import LineMap
from compilelint.fix.verify import Verifier, compile_failure_text

from .fix_modules import fix_result, fixed_text


def _fix(tmp_path: Path, src: str, code: str) -> tuple[EngineResult, str]:
    res = fix_result(tmp_path, src, (code,), name="m.py")
    return res, fixed_text(res, src)


BEAM = """\
import torch


class Beam(torch.nn.Module):
    def forward(self, x):
        cands = []
        for row in x:
            cands.append((row.sum(), row))
        hyps = sorted(cands, key=lambda h: h[0], reverse=True)[:2]
        best = max(cands, key=lambda h: h[0])
        return torch.stack([t for _, t in hyps]), best[1]
"""


def test_tuples_sorted_by_a_field_are_reordered_field_by_field(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, BEAM, "CL114")
    assert {r.status for r in res.records} == {"applied"}
    assert (
        "order = torch.argsort(torch.stack([h[0] for h in cands]), stable=True, descending=True)"
        in after
    )
    assert (
        "hyps = list(zip(*[torch.stack(list(field))[order].unbind(0) for field in zip(*cands)]))[:2]"
        in after
    )
    assert "pick = torch.argmax(torch.stack([h[0] for h in cands])).view(1)" in after
    assert "index_select(0, pick).squeeze(0) for field_2 in zip(*cands))" in after
    assert "torch.stack(list(cands))" not in after  # the tuples themselves are never stacked


def test_tuples_with_a_python_field_are_declined_before_verification(tmp_path: Path) -> None:
    src = BEAM.replace("cands.append((row.sum(), row))", "cands.append((row.sum(), int(row[0])))")
    res, after = _fix(tmp_path, src, "CL114")
    assert after == src
    reasons = " ".join(r.reason for r in res.records)
    assert "field 1 of the tuples of `cands` holds a Python value (`int(row[0])`)" in reasons


GATE = """\
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.use_gate = False
        self.heavy = nn.Linear(4, 4)
        self.light = nn.Linear(4, 4)

    def forward(self, x):
        if self.use_gate or x.norm() > 3.0:
            y = self.heavy(x)
        else:
            y = self.light(x)
        return y
"""


def test_sides_calling_other_submodules_are_only_proposed(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, GATE, "CL101")
    assert after == GATE
    (rec,) = res.records
    assert rec.status == "proposed"
    assert "`self.heavy` runs on every call" in rec.reason and "zero gradients" in rec.reason
    assert "+        if self.use_gate:" in rec.patch
    assert "+            y = torch.where(x.norm() > 3.0, self.heavy(x), self.light(x))" in rec.patch


def test_flag_or_tensor_with_else_keeps_each_part_its_type(tmp_path: Path) -> None:
    src = GATE.replace("self.heavy(x)", "x * 2").replace("self.light(x)", "x - 1")
    res, after = _fix(tmp_path, src, "CL101")
    assert [r.status for r in res.records] == ["applied"]
    assert "        if self.use_gate:\n            y = x * 2\n        else:\n" in after
    assert "y = torch.where(x.norm() > 3.0, x * 2, x - 1)" in after


def test_a_method_without_submodules_is_not_a_submodule(tmp_path: Path) -> None:
    src = (
        GATE.replace("y = self.heavy(x)", "y = self._double(x)")
        .replace("y = self.light(x)", "y = x")
        .replace(
            "        return y\n",
            "        return y\n\n    def _double(self, x):\n        return x * 2\n",
        )
    )
    res, _ = _fix(tmp_path, src, "CL101")
    assert [r.status for r in res.records] == ["applied"]


def test_a_compile_failure_of_the_fixed_model_is_named() -> None:
    block = {
        "compile_failure": {
            "type": "GuardOnDataDependentSymNode",
            "message": "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: "
            "Could not guard on data-dependent expression Ne(u0, 0)",
            "frame": {"path": "m.py", "line": 27},
        }
    }
    maps = {"m.py": LineMap("a\nb\n" * 13, "a\nx\nb\n" + "a\nb\n" * 12)}
    text = compile_failure_text(block, {}, maps)
    assert text is not None
    assert text.startswith("torch.compile fails on the fixed model at m.py:26")
    assert "Ne(u0, 0)" in text and "data-dependent values as Python numbers" in text
    # the original failed too: not the fix's doing
    assert compile_failure_text(block, block, maps) is None
    assert compile_failure_text({}, {}, maps) is None


def test_observed_exception_at_a_raise_is_recognised(tmp_path: Path) -> None:
    v = Verifier.__new__(Verifier)
    v.after_dir = str(tmp_path)
    (tmp_path / "m.py").write_text("x = 1\n    raise Stop()\ny = 2\n", encoding="utf-8")
    assert v._raises({}, "m.py", 2)
    assert not v._raises({}, "m.py", 1)
    assert not v._raises({}, "m.py", 9)
    assert v._raises({"m.py": ("", "raise E\n")}, "m.py", 1)
    assert v._raises({"m.py": ("", "        if h.mean() < 0.1: raise Stop()\n")}, "m.py", 1)
    assert not v._raises({"m.py": ("", "x = raised(1)  # raise\n")}, "m.py", 1)


def test_calls_stopped_by_a_compile_failure_say_why() -> None:
    from types import SimpleNamespace

    from compilelint.dynamic.outputs import _calls

    torch = SimpleNamespace(Tensor=type("Tensor", (), {}))  # no tensors among these outputs

    mine = {"outputs": [], "compile_failure": "GuardOnDataDependentSymNode: Ne(u0, 0) at m.py:26"}
    ref = {"outputs": [1, 2, 3], "compile_failure": None}
    got = _calls(torch, mine, ref)
    assert got.startswith("differ: torch.compile fails on this model at call 1")
    assert "Ne(u0, 0) at m.py:26" in got and "calls made" not in got
    # the original stopped (its own compile failure): the calls both made are compared
    assert (
        _calls(
            torch, {"outputs": [], "compile_failure": None}, {"outputs": [], "compile_failure": "x"}
        )
        == "match"
    )
    assert _calls(torch, {"outputs": [], "compile_failure": None}, ref) == (
        "differ: 0 calls made, 3 expected"
    )


def test_fields_of_elements_from_the_caller_are_declined(tmp_path: Path) -> None:
    """`sorted(hyps, key=lambda h: h[0])` on an argument: nothing says the elements are
    tensors, and `h[0]` reads a field: declined with that reason before any run."""
    from compilelint.model import Finding

    src = (
        "import torch\n\n\nclass Ranker(torch.nn.Module):\n"
        "    def forward(self, hyps):\n"
        "        best = sorted(hyps, key=lambda h: h[0], reverse=True)[:2]\n"
        "        return best\n"
    )
    work = tmp_path / "m.py"
    work.write_text(src, encoding="utf-8")
    observed = Finding(  # what torch's GB0207 at that line becomes (fix/observed.py)
        rule="CL114",
        name="observed",
        path=str(work),
        line=6,
        col=16,
        end_line=6,
        end_col=57,
        severity="error",
        message="torch observed a graph break here (GB0207)",
        fix="",
    )
    res = run_fixes(
        [str(work)], Config(select=("CL114",), cache=False), unsafe=True, extra=[observed]
    )
    (rec,) = res.records
    assert rec.status == "no-fix"
    assert "come from outside the function (`hyps`)" in rec.reason
