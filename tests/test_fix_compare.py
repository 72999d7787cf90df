"""A Python number read from a tensor whose comparison decides an ``if`` (issue 22, branch
fixcmp): the value is kept a 0-d tensor and the ``if`` lowered branchless.

Each VALID case is rewritten (static, fast) and, marked ``torch``, the fixed model is checked
against the original on the installed torch, the branch taken and not taken: no graph break
with ``fullgraph=True``; outputs and parameter gradients equal, compiled and uncompiled. The
INVALID cases are refused or only proposed, with the reason; the proposal for a growing loop's
exit is checked against torch (the patch changes the outputs when the exit fires).
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import load_module
from .torch_checks import compile_without_break

HEAD = "import torch\nfrom torch import nn\n\n\n"
SELECT = ("CL101", "CL102", "CL103")


def _model(body: str, init: str = "") -> str:
    return HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self, thresh=0.0, stop_ids=(3, 5)):
                super().__init__()
                self.lin = nn.Linear(8, 8)
                self.thresh = thresh
                self.stop_ids = set(stop_ids)
        {init}
            def forward(self, x):
        {body}
        """
    ).format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8),
        init=textwrap.indent(textwrap.dedent(init), " " * 4),
    )


VALID: dict[str, tuple[str, str]] = {
    # a loss guard reading the value twice, in the test and in the body
    "loss_guard": (
        _model(
            """\
            loss = self.lin(x).pow(2).mean()
            if loss.item() > self.thresh:
                loss = loss * (self.thresh / loss.item())
            return loss
            """
        ),
        "torch.where(",
    ),
    # a name, an `else`, two assignments
    "score_gate_else": (
        _model(
            """\
            s = self.lin(x).sigmoid()
            best = s.max().item()
            if best < self.thresh:
                out = torch.zeros_like(s)
                s = s * 0.0
            else:
                out = s * 2
            return out + s
            """
        ),
        "torch.where(",
    ),
    # float(), a Python default the branch replaces, `not`
    "gain_default": (
        _model(
            """\
            h = self.lin(x)
            peak = float(h.abs().max())
            gain = 1.0
            if not peak <= self.thresh:
                gain = self.thresh / peak
            return h * gain
            """
        ),
        "torch.where(",
    ),
    # int() of a count, the body a report and an assignment
    "count_report": (
        _model(
            """\
            h = self.lin(x)
            n = int((h > 0).sum())
            if n < 10:
                print("few positives", n)
                h = h.clamp(min=0.0)
            return h
            """
        ),
        "torch.where(",
    ),
    # bool() of a tensor deciding two `if`s, one under `not`
    "bool_flag": (
        _model(
            """\
            h = self.lin(x)
            big = bool((h.abs() > self.thresh).all())
            if not big:
                h = h * 2
            if big:
                h = h.clamp(min=-1.0, max=1.0)
            return h
            """
        ),
        "torch.where(",
    ),
    # membership in int ids set in `__init__`
    "member": (
        _model(
            """\
            h = self.lin(x)
            tok = h[0].argmax()
            if tok.item() in self.stop_ids:
                h = h * 0.5
            return h
            """
        ),
        "torch.isin(",
    ),
}

INVALID: dict[str, tuple[str, str]] = {
    # a list append under the `if`: no branchless form
    "append": (
        _model(
            """\
            h = self.lin(x)
            kept = []
            v = h.mean().item()
            if v > self.thresh:
                kept.append(h)
            return h, kept
            """
        ),
        "no branchless form",
    ),
    # membership in ids that are not known ints
    "member_unknown": (
        _model(
            """\
            h = self.lin(x)
            if h[0].argmax().item() in self.names:
                h = h * 0.5
            return h
            """,
            init="def set_names(self, names):\n    self.names = names\n",
        ),
        "not only in arithmetic",
    ),
}

GROWING = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, stop_ids=(3, 5)):
            super().__init__()
            self.emb = nn.Embedding(8, 8)
            self.head = nn.Linear(8, 8)
            self.stop_ids = set(stop_ids)

        def forward(self, ids):
            for _ in range(6):
                tok = self.head(self.emb(ids).mean(1)).argmax(-1)
                ids = torch.cat([ids, tok[:, None]], dim=1)
                if tok.item() in self.stop_ids:
                    break
            return ids
    """
)


def _run(tmp_path: Path, code: str) -> tuple[str, list[str], list[Any]]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=SELECT, cache=False), unsafe=True)
    after = next((c.after.decode() for c in res.changes), code)
    return after, [r.reason for r in res.records if r.reason], list(res.records)


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_is_rewritten(tmp_path: Path, case: str) -> None:
    code, want = VALID[case]
    fixed, _, _ = _run(tmp_path, code)
    assert want in fixed, fixed
    assert ".item()" not in fixed, fixed
    body = fixed.split("def forward")[1]
    # the only `if` left is a report under the eager-only guard
    assert body.count("if ") == 2 * body.count("if not torch.compiler.is_compiling()"), fixed


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    fixed, reasons, _ = _run(tmp_path, code)
    assert ".item()" in fixed or "float(" in fixed, fixed
    assert any(why in r for r in reasons), reasons


def test_growing_loop_exit_is_proposed(tmp_path: Path) -> None:
    fixed, reasons, records = _run(tmp_path, GROWING)
    assert fixed == GROWING
    assert any("grows the state" in r for r in reasons), reasons
    assert any(getattr(r, "patch", None) and "-                break" in r.patch for r in records)


# ---------------------------------------------------------------------------- with torch
def _load(path: Path) -> Any:
    return load_module(path, "compare")


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = VALID[case][0]
    fixed, _, _ = _run(tmp_path, code)
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = _load(tmp_path / "a.py"), _load(tmp_path / "b.py")

    def run(mod: Any, compiled: bool, x: Any, thresh: float, stop: tuple[int, ...]) -> Any:
        torch.manual_seed(0)
        model = mod.Model(thresh, stop)
        torch._dynamo.reset()
        fn = compile_without_break(model, (x,)) if compiled else model
        out = fn(x)
        out.float().sum().backward()
        return out.detach(), [p.grad for p in model.parameters()]

    x = torch.randn(4, 8)
    # each threshold / id set on both sides of the data: the branch taken and not taken
    for thresh in (-1e3, 0.05, 1e3):
        for stop in ((0, 1, 2, 3, 4, 5, 6, 7), (99,)):
            want = run(a, False, x, thresh, stop)
            for compiled in (False, True):
                got = run(b, compiled, x, thresh, stop)
                torch.testing.assert_close(got[0], want[0])
                torch.testing.assert_close(got[1], want[1])


@pytest.mark.torch
def test_growing_loop_proposal_changes_outputs_on_torch(tmp_path: Path) -> None:
    """The proposed patch (the exit dropped) is not applied: where the exit fires, eager
    returns fewer tokens than the patched loop."""
    torch = pytest.importorskip("torch")
    _, _, records = _run(tmp_path, GROWING)
    patched = GROWING.replace("            if tok.item() in self.stop_ids:\n", "").replace(
        "                break\n", ""
    )
    assert patched != GROWING
    (tmp_path / "a.py").write_text(GROWING, encoding="utf-8")
    (tmp_path / "b.py").write_text(patched, encoding="utf-8")
    a, b = _load(tmp_path / "a.py"), _load(tmp_path / "b.py")
    torch.manual_seed(0)
    ma = a.Model(stop_ids=tuple(range(8)))
    mb = b.Model(stop_ids=tuple(range(8)))
    mb.load_state_dict(ma.state_dict())
    ids = torch.tensor([[1, 2]])
    assert ma(ids).shape[1] == 3 and mb(ids).shape[1] == 8
