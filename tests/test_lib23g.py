"""Issue 23, round lib23g: where a multi-line test breaks.

- torch reports a break on a tensor's truth at the jump instruction that tests it. CPython 3.11
  gives that jump the line of the statement (``if``/``elif``/``while``/``assert``, or of the
  ``x if t else y``) unless the tested operand is a comparison, whose jump is on the comparison's
  own line; 3.12 on, every jump is on its operand's first line. torchmetrics'
  ``_final_aggregation`` (``if (\\n (var_x < bound).any()\\n or ...):``, ``pearson.py:123``)
  was reported on the operand's line (124).

Each static verdict comes with torch's own (the ``graph_breaks`` log) and CPython's (``dis``).
"""

from __future__ import annotations

import dis
import json
import sys
import types
from pathlib import Path

import pytest

from tests.cli_invoke import invoke
from tests.torch_checks import logged_break_lines

# every form keeps its break on a line of its own: the tested operand's line differs from the
# statement's, and (for `cmp_in_or`) the first operand is no tensor
FORMS = {
    "call_in_or": """\
def f(x, n):
    if (
        (x < 0).any()
        or (x > 9).any()
    ):
        return x - 1
    return x + 1
""",
    "call_alone": """\
def f(x, n):
    if (
        x.sum()
    ):
        return x - 1
    return x + 1
""",
    "cmp_in_or": """\
def f(x, n):
    if n is None or (
        x.sum() > 0
    ):
        return x - 1
    return x + 1
""",
    "not_call": """\
def f(x, n):
    if not (
        x.any()
    ):
        return x - 1
    return x + 1
""",
    "elif_call": """\
def f(x, n):
    if n is None:
        return x
    elif (
        x.any() and n > 0
    ):
        return x - 1
    return x + 1
""",
    "guarded_calls": """\
def f(x, n):
    if (
        (n is not None and x.any())
        or (n is None and x.all())
    ):
        return x - 1
    return x + 1
""",
    "guard_then_call": """\
def f(x, n):
    if (
        (n is not None and
         x.any())
        or x.all()
    ):
        return x - 1
    return x + 1
""",
    "ifexp_call": """\
def f(x, n):
    y = (x - 1 if (
        x.any()
        or n is None) else x + 1)
    return y
""",
}

HEADER = "import torch\n\n\n"
FOOTER = """

class Model(torch.nn.Module):
    def forward(self, x):
        return f(x, 2)
"""


def _static_lines(tmp_path: Path, src: str) -> set[int]:
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(
        ["check", "model.py", "--format", "json", "--no-cache", "--select", "CL101"],
        cwd=tmp_path,
    )
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"]}


def _jump_lines(src: str) -> set[int]:
    """CPython's line of ``f``'s first conditional jump that follows a tensor operand (every
    jump but those testing ``n``): the running interpreter's own placement, where torch breaks
    first (the finding is the test's first tensor operand)."""
    ns: dict[str, object] = {}
    exec(compile(src, "<lib23g>", "exec"), ns)
    code = ns["f"].__code__  # type: ignore[attr-defined]
    out: set[int] = set()
    prev = None
    for ins in dis.get_instructions(code):
        if "POP_JUMP" in ins.opname and prev is not None and prev.argval != "n":
            if not (prev.opname in ("IS_OP", "COMPARE_OP") and "n" in _loads_before(code, ins)):
                assert ins.positions is not None and ins.positions.lineno is not None
                out.add(ins.positions.lineno)
                break
        if ins.opname not in ("CACHE",):
            prev = ins
    return out


def _loads_before(code: types.CodeType, jump: dis.Instruction) -> set[str]:
    """The names loaded by the three instructions before ``jump`` (``n is None``, ``n > 0``)."""
    ins = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    k = next(j for j, i in enumerate(ins) if i.offset == jump.offset)
    return {str(i.argval) for i in ins[max(0, k - 3) : k] if i.opname == "LOAD_FAST"}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_break_is_on_the_jump_line(tmp_path: Path, form: str) -> None:
    src = HEADER + FORMS[form] + FOOTER
    got = _static_lines(tmp_path, src)
    assert got == _jump_lines(src), form
    assert len(got) == 1


def test_the_statement_line_on_311_the_operand_line_on_312() -> None:
    # INVALID before this round: the operand's line (6) on 3.11
    src = HEADER + FORMS["call_in_or"] + FOOTER
    want = {5} if sys.version_info < (3, 12) else {6}
    assert _jump_lines(src) == want


def _break_lines(torch: types.ModuleType, model: object, x: object, name: str) -> set[int]:
    """The lines of ``<name>`` where torch logs a graph break compiling ``model`` on ``x``."""
    return logged_break_lines(model, x, f"{name}>")


@pytest.mark.torch
@pytest.mark.parametrize("form", sorted(FORMS))
def test_torch_breaks_on_the_line_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    torch = pytest.importorskip("torch")
    src = HEADER + FORMS[form] + FOOTER
    name = f"lib23g_{form}"
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    torch_lines = _break_lines(torch, mod.Model(), torch.randn(4), name)
    assert torch_lines == _static_lines(tmp_path, src), form


# --------------------------------------------------------------------------- unresumable breaks
SLICE = """\
import torch


def f(a, b):
    i = (a > 0).sum()
    x = {index}
    y = b.sum().item()
    return x.sum() + y


class Model(torch.nn.Module):
    def forward(self, a):
        return f(a, a * 2)
"""


def _lines(tmp_path: Path, src: str) -> set[tuple[int, str]]:
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(
        ["check", "model.py", "--format", "json", "--no-cache", "--select", "ALL"], cwd=tmp_path
    )
    assert code in (0, 1), err
    return {(f["line"], f["rule"]) for f in json.loads(out)["findings"]}


def test_nothing_later_breaks_after_a_tensor_slice_bound(tmp_path: Path) -> None:
    # VALID for line 7: torch cannot resume after `a[:i]` and runs the rest of `f` eagerly
    got = _lines(tmp_path, SLICE.format(index="a[:i]"))
    assert (6, "CL113") in got
    assert not any(line == 7 for line, _ in got)


def test_a_boolean_mask_is_resumed_after(tmp_path: Path) -> None:
    # INVALID for line 7: after a boolean mask torch resumes, and `.item()` breaks again
    got = _lines(tmp_path, SLICE.format(index="a[a > 0]"))
    assert (6, "CL111") in got
    assert (7, "CL103") in got


@pytest.mark.torch
@pytest.mark.parametrize(("index", "want"), [("a[:i]", {6}), ("a[a > 0]", {6, 7})])
def test_torch_agrees_on_the_rest_of_the_frame(
    monkeypatch: pytest.MonkeyPatch, index: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    name = "lib23g_slice" + str(len(want))
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(SLICE.format(index=index), f"<{name}>", "exec"), mod.__dict__)
    assert _break_lines(torch, mod.Model(), torch.randn(8), name) == want


# --------------------------------------------------------------------------- annotated objects
OBJECT_PARAM = """\
import torch
from torch.distributions import ExpTransform, Transform


class Lazy(torch.nn.Module):
    def forward(self, c):
        return ExpTransform()


class Flow:
    def __init__(self, transform{ann}, x):
        n = transform.codomain.event_dim - len(x.shape)
        if n > 0:
            x = x.unsqueeze(0)
        self.x = x


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t = Lazy()

    def forward(self, x):
        t = self.t(x)
        return Flow(t, x).x * 2
"""


def test_a_parameter_annotated_with_a_torch_class_holds_no_tensor(tmp_path: Path) -> None:
    # VALID: `self.t(x)` is taken for a tensor, but `transform: Transform` is torch's class
    assert _lines(tmp_path, OBJECT_PARAM.format(ann=": Transform")) == set()


def test_an_unannotated_parameter_keeps_the_callers_tensor(tmp_path: Path) -> None:
    # INVALID (for the static stage): nothing says the module call returns no tensor
    assert (13, "CL101") in _lines(tmp_path, OBJECT_PARAM.format(ann=""))


@pytest.mark.torch
def test_torch_agrees_on_the_annotated_object(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import assert_no_graph_break

    name = "lib23g_object"
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(OBJECT_PARAM.format(ann=": Transform"), f"<{name}>", "exec"), mod.__dict__)
    assert_no_graph_break(mod.Model(), (torch.randn(4),))


# --------------------------------------------------------------------------- breaks in `try:`
TRY = """\
import torch


def f(a, b):
{body}
    if b.sum() > 0:
        b = b + 1
    return b + m


class Model(torch.nn.Module):
    def forward(self, a):
        return f(a, a * 2)
"""
IN_TRY = """\
    try:
        m = a.sum().item()
    except ValueError:
        m = 0.0"""
NO_TRY = """\
    m = a.sum().item()
    n = 0
    n += 1
    n += 2"""


def test_nothing_later_breaks_after_a_break_in_a_try_body(tmp_path: Path) -> None:
    # VALID for line 9: torch cannot resume inside the `try` and runs the rest of `f` eagerly
    got = _lines(tmp_path, TRY.format(body=IN_TRY))
    assert (6, "CL103") in got
    assert not any(line == 9 for line, _ in got)


def test_a_break_outside_a_try_is_resumed_after(tmp_path: Path) -> None:
    # INVALID for line 9: resumed after `.item()`, the branch on `b.sum()` breaks again
    got = _lines(tmp_path, TRY.format(body=NO_TRY))
    assert {(5, "CL103"), (9, "CL101")} <= got


@pytest.mark.torch
@pytest.mark.parametrize(("body", "want"), [(IN_TRY, {6}), (NO_TRY, {5, 9})])
def test_torch_agrees_on_breaks_in_a_try_body(
    monkeypatch: pytest.MonkeyPatch, body: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    name = "lib23g_try" + str(len(want))
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(TRY.format(body=body), f"<{name}>", "exec"), mod.__dict__)
    assert _break_lines(torch, mod.Model(), torch.randn(8), name) == want
