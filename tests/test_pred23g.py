"""Issue 23, pred23g: breaks behind a loop break stay findings, marked ``behind`` the first
(torch 2.13 runs the frame eagerly from the first and reports the later ones only once it is
fixed), and left out of the prediction and of the fix-corpus oracle's predicted lines."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan
from tests.pred_helpers import line_of, predicted_recompile_lines

ROOT = Path(__file__).resolve().parent.parent
HEAD = (
    "import logging\n\nimport torch\nfrom torch import nn\n\nlogger = logging.getLogger(__name__)\n"
)

# VALID: a logging call on every iteration breaks (GB0291, "logging.Logger method not
# supported"), torch skips the frame, and the branch on data after it is not reported
LOG_IN_LOOP = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

        def forward(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x)
                logger.debug("layer %d: %s", i, tuple(x.shape))
                if not torch.isfinite(x).all():
                    raise FloatingPointError(i)
            return x
    """)
# INVALID for hiding: the logging call sits under an `if` (an iteration may skip it), so the
# branch on data after it is reported by torch too
LOG_UNDER_IF = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.verbose = False

        def forward(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if self.verbose:
                    logger.debug("layer %d: %s", i, tuple(x.shape))
                if not torch.isfinite(x).all():
                    raise FloatingPointError(i)
            return x
    """)


def _scan(src: str) -> list[Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "m.py").write_text(src)
        old = os.getcwd()
        os.chdir(tmp)
        try:
            return list(scan(["m.py"], load_config(["m.py"]), no_cache=True).findings)
        finally:
            os.chdir(old)


def _breaks(src: str) -> dict[int, int | None]:
    """``{line: behind}`` of the break findings (CL1xx, CL2xx) of a scan of the source."""
    return {f.line: f.behind for f in _scan(src) if f.rule[:3] in ("CL1", "CL2")}


def test_a_break_behind_a_logging_call_in_a_loop_is_found_and_marked() -> None:
    log, branch = line_of(LOG_IN_LOOP, "logger.debug"), line_of(LOG_IN_LOOP, "isfinite")
    assert _breaks(LOG_IN_LOOP) == {log: None, branch: log}
    log, branch = line_of(LOG_UNDER_IF, "logger.debug"), line_of(LOG_UNDER_IF, "isfinite")
    assert _breaks(LOG_UNDER_IF) == {log: None, branch: None}


def test_json_and_the_oracle_carry_behind() -> None:
    """JSON ``behind``; the fix-corpus oracle does not count such a finding as a predicted
    line of this run."""
    import sys

    from compilelint.report.json_reporter import finding_dict

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fix_corpus_predict as fcp
    finally:
        sys.path.pop(0)
    found = [f for f in _scan(LOG_IN_LOOP) if f.rule[:3] in ("CL1", "CL2")]
    rows = [finding_dict(f) for f in found]
    log, branch = line_of(LOG_IN_LOOP, "logger.debug"), line_of(LOG_IN_LOOP, "isfinite")
    assert {r["line"]: r.get("behind") for r in rows} == {log: None, branch: log}
    for r in rows:
        r["path"] = "m.py"
    observed = [{"kind": "break", "line": log}]
    score = fcp.match(observed, {"findings": rows}, "m.py", LOG_IN_LOOP, fcp.rule_kinds())
    assert score.found_breaks == [log] and score.break_hit == [log]


def _torch_breaks(tmp_path: Path, src: str) -> set[int]:
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(src)
    spec = {"model": "m.py:M", "inputs": [{"tensor": [2, 4]}], "calls": 1}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    return {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")}


@pytest.mark.torch
@pytest.mark.parametrize("src", [LOG_IN_LOOP, LOG_UNDER_IF], ids=["in_loop", "under_if"])
def test_the_lines_torch_reports_are_those_not_behind(tmp_path: Path, src: str) -> None:
    """torch 2.13 breaks at a ``logger.debug`` call (it is not ignored by default) and, in a
    loop, skips the frame: it reports the lines not ``behind`` another, and no other."""
    pytest.importorskip("torch")
    seen = _torch_breaks(tmp_path, src)
    want = {ln for ln, first in _breaks(src).items() if first is None}
    if src is LOG_UNDER_IF:
        # `self.verbose` is False: torch never reaches the logging call (the static stage
        # cannot tell the branch is never taken); the branch on data is reported
        assert seen == {line_of(src, "isfinite")} and seen < want
    else:
        assert seen == want


@pytest.mark.torch
def test_the_cnn_bench_fixture_matches_torch(tmp_path: Path) -> None:
    """``fixtures/bench/cnn.py``: torch reports the logging call (line 52) and not the check
    on the activations after it (line 53, behind it); both stay findings (its markers)."""
    pytest.importorskip("torch")
    src = (ROOT / "fixtures" / "bench" / "cnn.py").read_text(encoding="utf-8")
    log, check = line_of(src, "logger.debug"), line_of(src, "torch.isfinite")
    assert _breaks(src) == {log: None, check: log}
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(src)
    spec = {
        "model": "m.py:SmallResNet",
        "init": {"kwargs": {"widths": [8, 16], "blocks": 1, "classes": 10}},
        "inputs": [{"tensor": [2, 3, 16, 16]}],
        "calls": 1,
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    assert {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")} == {log}


# ---------------------------------------------------------------------------- sizes that vary
# A frame of its own called in a loop with a tensor whose size changes between iterations
# recompiles once at its `def` (static/analysis/sizes.py, predict._varying_size_recompiles).
TORCH = "import torch\nfrom torch import nn\n"

# VALID: grown by concatenation with itself; `forward` is skipped (`.item()` in its loop), so
# `step` is compiled as a frame of its own
GROWN = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def step(self, ids):
            return self.lin(ids.float()).mean(1)

        def forward(self, x):
            ids = x
            for _ in range(3):
                h = self.step(ids)
                ids = torch.cat([ids, h[:, None, :]], dim=1)
                if h.sum().item() > 1e9:
                    break
            return ids
    """)
# VALID: selected by a mask in a loop over classes; `forward` is skipped (the selection and
# `.item()` break in its loop), so the helper is a frame of its own
MASKED = TORCH + textwrap.dedent("""
    def score(b, s):
        return b * s[:, None]


    class M(nn.Module):
        def forward(self, x):
            out = []
            for c in range(3):
                m = x[:, c] > (c - 1) * 0.5
                out.append(score(x[m], x[m][:, 0]))
                if m.sum().item() > 100:
                    break
            return out
    """)
# VALID: sliced by a number read from a tensor
SLICED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def attend(self, seq):
            return self.lin(seq).softmax(-1)

        def forward(self, x, lengths):
            outs = []
            for seq, n in zip(x, lengths):
                seq = seq[: int(n)]
                outs.append(self.attend(seq[None]).mean(1))
            return torch.cat(outs)
    """)
# INVALID: a layer loop keeps sizes (a module call is not followed), the index drops a dim,
# the slice's bounds are constants: each frame gets the same sizes every iteration
KEPT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def step(self, h):
            return self.lin(h)

        def tail(self, row):
            return row * 2

        def head(self, rows):
            return rows.sum(0)

        def forward(self, x):
            h = x
            for i in range(3):
                h = self.step(h)
                row = x[i]
                _ = self.tail(row) + self.head(x[:2])
                if h.sum().item() > 1e9:
                    break
            return h
    """)
# INVALID: the helper is skipped itself (a break in its own loop), so it is never compiled and
# never recompiled, whatever sizes it gets
SKIPPED_HELPER = TORCH + textwrap.dedent("""
    def shrink(order, thr):
        keep = []
        while order.numel() > 0:
            keep.append(order[0])
            order = order[1:][order[1:] > thr]
        return keep


    class M(nn.Module):
        def forward(self, x):
            out = []
            for c in range(3):
                m = x[:, c] > 0
                out.extend(shrink(x[m][:, c], 0.1 * c))
            return out
    """)

SIZE_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "grown": (GROWN, "def step", {"inputs": [{"tensor": [2, 3, 4]}]}),
    "masked": (MASKED, "def score", {"inputs": [{"tensor": [16, 4]}]}),
    "sliced": (
        SLICED,
        "def attend",
        {
            "inputs": [
                {"tensor": [3, 8, 4]},
                {"tensor": [3], "dtype": "int64", "data": [2, 5, 7]},
            ]
        },
    ),
    "kept": (KEPT, None, {"inputs": [{"tensor": [4, 4]}]}),
    "skipped_helper": (SKIPPED_HELPER, None, {"inputs": [{"tensor": [16, 4]}]}),
}


@pytest.mark.parametrize("name", sorted(SIZE_CASES))
def test_a_size_that_varies_between_iterations_recompiles_the_frame(
    tmp_path: Path, name: str
) -> None:
    src, at, spec = SIZE_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert predicted_recompile_lines(tmp_path, src, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SIZE_CASES))
def test_the_size_recompiles_match_torch(tmp_path: Path, name: str) -> None:
    """The recompile lines torch 2.13 reports are the predicted ones."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src, at, spec = SIZE_CASES[name]
    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert seen == ({line_of(src, at)} if at else set())


# ---------------------------------------------------------------------------- float state
# VALID: a float attribute that traced code changes from its own value: torch 2.13 guards on it
# at its first read, recompiles once, then keeps it symbolic (predict.float_state)
FLOAT_STEP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 0.0

        def forward(self, x):
            y = x * (self.scale + 1.0)
            self.scale = min(self.scale + 0.5, 5.0)
            return y
    """)
# VALID: the same behind a break (`.item()`): the resume function reads it first
FLOAT_AFTER_BREAK = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.capacity = 0.0

        def forward(self, x):
            kl = x.pow(2).mean()
            if kl.item() > self.capacity * 0.5:
                self.capacity = self.capacity + 0.5
            return x - self.capacity
    """)
# INVALID: a float attribute only read (no change, no guard that fails)
FLOAT_READ = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 0.5

        def forward(self, x):
            return x * self.scale
    """)

FLOAT_CASES: dict[str, tuple[str, str | None]] = {
    "step": (FLOAT_STEP, "y = x * (self.scale"),
    "after_break": (FLOAT_AFTER_BREAK, "if kl.item()"),
    "read_only": (FLOAT_READ, None),
}
FLOAT_SPEC: dict[str, Any] = {"inputs": [{"tensor": [3], "init": "ones"}], "calls": 4}


@pytest.mark.parametrize("name", sorted(FLOAT_CASES))
def test_a_float_attribute_changed_in_traced_code_recompiles_once(
    tmp_path: Path, name: str
) -> None:
    src, at = FLOAT_CASES[name]
    assert predicted_recompile_lines(tmp_path, src, FLOAT_SPEC) == (
        {line_of(src, at)} if at else set()
    )


def test_the_float_fact_is_version_ranged(tmp_path: Path) -> None:
    """Checked on torch 2.13 only: an older ``--target-torch`` gets no prediction of it."""
    from compilelint.static.predict import _float_state_applies

    assert _float_state_applies(None) and _float_state_applies("2.13.0")
    assert not _float_state_applies("2.5.1")


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(FLOAT_CASES))
def test_the_float_recompiles_match_torch(tmp_path: Path, name: str) -> None:
    """torch 2.13 recompiles once, at the first read, over four calls."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src, at = FLOAT_CASES[name]
    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **FLOAT_SPEC}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    rows = [r for r in block["recompiles"] if not r.get("invalidated")]
    assert {r["line"] for r in rows} == ({line_of(src, at)} if at else set())
    assert len(rows) == (1 if at else 0)


# ---------------------------------------------------------------------------- .item() lines
# The resume function after `.item()` guards on the number where it first uses it
# (predict.value_use_line): the break's own line when the statement goes on with it, else the
# first later read of the name it is stored in.
ITEM_STORED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            n = x.sum().item()
            y = x * 2
            return y * n
    """)
ITEM_COMPARED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            if x.sum().item() > 0.5:
                return x * 2
            return x
    """)
ITEM_WRAPPED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            n = float(x.sum().item())
            return x * n
    """)
ITEM_CASES = {
    "stored": (ITEM_STORED, "return y * n"),
    "compared": (ITEM_COMPARED, "if x.sum().item()"),
    "wrapped": (ITEM_WRAPPED, "n = float("),
}
# literal data, so that each call brings another number: with random data the compared case's
# three calls did not recompile on one snippet and did on another (torch's choice to
# specialise the number depends on the values; the prediction does not model it)
ITEM_SPEC: dict[str, Any] = {
    "inputs": [{"tensor": [3], "data": [1.0, 1.0, 1.0]}],
    "variants": [
        {"inputs": [{"tensor": [3], "data": [2.0, 2.0, 2.0]}]},
        {"inputs": [{"tensor": [3], "data": [3.0, 3.0, 3.0]}]},
    ],
}


@pytest.mark.parametrize("name", sorted(ITEM_CASES))
def test_the_item_guard_is_where_the_number_is_first_used(tmp_path: Path, name: str) -> None:
    src, at = ITEM_CASES[name]
    assert predicted_recompile_lines(tmp_path, src, ITEM_SPEC) == {line_of(src, at)}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ITEM_CASES))
def test_the_item_guard_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src, at = ITEM_CASES[name]
    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **ITEM_SPEC}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert seen == {line_of(src, at)}


# ---------------------------------------------------------------------------- aliased arguments
# VALID: `x0 = x = ...` before the loop, `x` rebound in it: the first call of the frame gets one
# tensor twice, the second two (sizes.aliased_arguments); the initial value comes from a module
# (requires grad, like what the loop leaves) so the guard that fails is the aliasing one
ALIASED = TORCH + textwrap.dedent("""
    class Cross(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Linear(4, 4)

        def forward(self, x0, x):
            return x0 * self.w(x) + x


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(4, 4)
            self.layers = nn.ModuleList(Cross() for _ in range(3))

        def forward(self, x):
            x0 = x = self.inp(x)
            for layer in self.layers:
                x = layer(x0, x)
                if x.sum().item() > 1e9:
                    break
            return x
    """)
# INVALID: the same names, but the loop rebinds neither: every call passes one tensor twice
ALIASED_FIXED = ALIASED.replace("x = layer(x0, x)", "y = layer(x0, x)").replace(
    "if x.sum().item()", "if y.sum().item()"
)
ALIAS_CASES = {
    "aliased": (ALIASED, "def forward(self, x0, x)"),
    "aliased_fixed": (ALIASED_FIXED, None),
}


@pytest.mark.parametrize("name", sorted(ALIAS_CASES))
def test_arguments_aliased_on_the_first_iteration_recompile_the_frame(
    tmp_path: Path, name: str
) -> None:
    src, at = ALIAS_CASES[name]
    spec: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}]}
    assert predicted_recompile_lines(tmp_path, src, spec) == ({line_of(src, at)} if at else set())


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ALIAS_CASES))
def test_the_alias_recompiles_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src, at = ALIAS_CASES[name]
    (tmp_path / "m.py").write_text(src)
    spec = {"model": "m.py:M", "inputs": [{"tensor": [2, 4]}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert seen == ({line_of(src, at)} if at else set())
