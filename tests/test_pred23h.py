"""Issue 23, pred23h: one recompile line per changing value, where torch reports it, and the
recompiles the source alone shows predicted without an input spec.

- Module state changed in traced code (CL501: an int counter, a list that grows) that traced
  code reads before the change: dynamo guards on it at that first read, and torch's recompile
  reason names that line. The finding stays at the change (where the fix goes) and records the
  guard's line (``Finding.guard_line``); the prediction's recompile for it is that line, and no
  second line is reported for the same value (``static/analysis/state.py``).
- Without a spec the scan reports as ``CL303`` a frame of its own called in a loop with a tensor
  whose size varies between the iterations (or aliased on the first one), and a float attribute
  that traced code changes from its own value (``predict.spec_free_recompiles``).

Each case's lines are checked against torch 2.13's recompile lines (``run_dynamic``); the same
sources are torch-checked with a spec in ``test_pred23e.py`` and ``test_pred23g.py``.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.model import Finding
from compilelint.static.engine import scan
from tests.pred_helpers import line_of

from .report_blocks import extra_block

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from test_pred23e import (  # noqa: E402
    COUNTER_CHANGED_FIRST,
    COUNTER_READ_FIRST,
    QUEUE_TESTED_FIRST,
)
from test_pred23g import (  # noqa: E402
    ALIAS_CASES,
    FLOAT_AFTER_BREAK,
    FLOAT_READ,
    FLOAT_STEP,
    GROWN,
    KEPT,
    MASKED,
    SIZE_CASES,
    SKIPPED_HELPER,
    SLICED,
)

RECOMPILE_RULES = frozenset({"CL301", "CL303", "CL304", "CL501", "CL502"})


def _scan(tmp_path: Path, src: str) -> list[Finding]:
    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        return list(scan(["m.py"], load_config(["m.py"]), no_cache=True).findings)
    finally:
        os.chdir(old)


def _recompile_lines(findings: list[Finding]) -> set[int]:
    """The lines at which the findings say torch reports a recompile (a state change's guard
    line, else the finding's line)."""
    return {f.guard_line or f.line for f in findings if f.rule in RECOMPILE_RULES}


# INVALID for an earlier line: the earlier read sits in a branch the call does not take (a flag
# off), so no guard is installed there; torch 2.13 reports the change's own read
READ_IN_BRANCH = "import torch\nfrom torch import nn\n" + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = 0
            self.verbose = False

        def forward(self, x):
            if self.verbose:
                x = x * self.step
            y = x * 2
            self.step += 1
            return y
    """)

# ---------------------------------------------------------------------------- state guard lines
# (source, text of the line torch reports, text of the change or None when it is that line)
STATE_CASES: dict[str, tuple[str, str, str | None]] = {
    # VALID: read before it changes: the guard is at the read
    "counter_read_first": (COUNTER_READ_FIRST, "scale = 1.0 / (self.step", "self.step += 1"),
    "queue_tested_first": (QUEUE_TESTED_FIRST, "if self.queue:", "self.queue.append"),
    # INVALID for a guard line: the change is the first read (or the first on every path)
    "counter_changed_first": (COUNTER_CHANGED_FIRST, "self.step += 1", None),
    "read_in_branch": (READ_IN_BRANCH, "self.step += 1", None),
}
STATE_SPEC: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}], "calls": 3}


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_a_state_change_names_the_line_of_its_guard(tmp_path: Path, name: str) -> None:
    src, guard, change = STATE_CASES[name]
    found = [f for f in _scan(tmp_path, src) if f.rule == "CL501"]
    assert len(found) == 1, found
    f = found[0]
    if change is None:
        assert f.line == line_of(src, guard) and f.guard_line is None
        assert "torch reports it at line" not in f.message
    else:
        assert f.line == line_of(src, change)  # the finding stays where the fix goes
        assert f.guard_line == line_of(src, guard)
        assert f"torch reports it at line {f.guard_line}" in f.message
    assert _recompile_lines(_scan(tmp_path, src)) == {line_of(src, guard)}


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_with_a_spec_one_line_per_changing_value(tmp_path: Path, name: str) -> None:
    """With ``--input-spec`` the prediction adds no second finding at a read on every path to
    the change (one guard); a read only in a branch's body stays a second candidate."""
    from compilelint.api import check

    src, guard, _change = STATE_CASES[name]
    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **STATE_SPEC}))
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = check(["m.py"], load_config(["m.py"]), no_cache=True, predict_spec="spec.json")
    finally:
        os.chdir(old)
    rec = [f for f in report.findings if f.rule in RECOMPILE_RULES]
    want = {line_of(src, guard)}
    if name == "read_in_branch":
        # a read in a branch's body: torch reports it when the first call takes the branch,
        # else the change; the prediction keeps both candidates (CL303 at the read)
        want.add(line_of(src, "x = x * self.step"))
    assert len(rec) == len(want), rec
    assert _recompile_lines(rec) == want
    sites = extra_block(report, "prediction")["recompile_sites"]
    # the prediction's own site for the value: the first read on any path
    assert {s["line"] for s in sites} == (want - {line_of(src, guard)} or want)


def test_the_oracle_scores_a_state_change_at_its_guard_line() -> None:
    from fix_corpus_predict import match

    report = {
        "findings": [
            {"rule": "CL501", "path": "m.py", "line": 12, "guard_line": 10},
            {"rule": "CL501", "path": "m.py", "line": 20},
        ]
    }
    obs = [{"kind": "recompile", "line": 10}, {"kind": "recompile", "line": 20}]
    s = match(obs, report, "m.py", "", (frozenset(), frozenset({"CL501"})))
    assert s.found_recompiles == [10, 20] and s.rec_hit == [10, 20]


def test_the_json_and_sarif_reports_carry_the_guard_line(tmp_path: Path) -> None:
    from compilelint.report.json_reporter import finding_dict

    f = next(f for f in _scan(tmp_path, COUNTER_READ_FIRST) if f.rule == "CL501")
    assert finding_dict(f)["guard_line"] == f.guard_line
    g = next(f for f in _scan(tmp_path, COUNTER_CHANGED_FIRST) if f.rule == "CL501")
    assert "guard_line" not in finding_dict(g)


# ---------------------------------------------------------------------------- without a spec
# VALID: a float attribute changed from its own value (torch: one recompile at its first read)
# INVALID: only read. VALID: sizes that vary between iterations of a loop (at the frame's def);
# INVALID: a layer loop that keeps sizes, a helper skipped itself. VALID: one tensor passed twice
# on the first iteration of a loop and two on the next; INVALID: the loop rebinds neither.
NO_SPEC_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    **{k: (src, at, spec) for k, (src, at, spec) in SIZE_CASES.items()},
    "float_step": (FLOAT_STEP, "y = x * (self.scale", {}),
    "float_after_break": (FLOAT_AFTER_BREAK, "if kl.item()", {}),
    "float_read_only": (FLOAT_READ, None, {}),
    **{k: (src, at, {"inputs": [{"tensor": [2, 4]}]}) for k, (src, at) in ALIAS_CASES.items()},
}
FLOAT_SPEC: dict[str, Any] = {"inputs": [{"tensor": [3], "init": "ones"}], "calls": 4}
assert {GROWN, MASKED, SLICED, KEPT, SKIPPED_HELPER} <= {v[0] for v in NO_SPEC_CASES.values()}


@pytest.mark.parametrize("name", sorted(NO_SPEC_CASES))
def test_recompiles_the_source_shows_are_found_without_a_spec(tmp_path: Path, name: str) -> None:
    src, at, _spec = NO_SPEC_CASES[name]
    found = [f for f in _scan(tmp_path, src) if f.rule == "CL303"]
    assert {f.line for f in found} == ({line_of(src, at)} if at else set())
    for f in found:
        assert "spec" not in f.message, f.message


def test_float_state_without_a_spec_follows_the_target_torch(tmp_path: Path) -> None:
    from compilelint.config import Config

    (tmp_path / "m.py").write_text(FLOAT_STEP)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        cfg = load_config(["m.py"])
        import dataclasses

        older: Config = dataclasses.replace(cfg, target_torch="2.5.1")
        got = scan(["m.py"], older, no_cache=True).findings
    finally:
        os.chdir(old)
    assert not [f for f in got if f.rule == "CL303"]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted([*STATE_CASES, *NO_SPEC_CASES]))
def test_the_lines_without_a_spec_match_torch(tmp_path: Path, name: str) -> None:
    """torch 2.13's recompile lines are the lines the scan without a spec reports."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    if name in STATE_CASES:
        src, guard, _ = STATE_CASES[name]
        spec, want = STATE_SPEC, {line_of(src, guard)}
    else:
        src, at, spec = NO_SPEC_CASES[name]
        spec = spec or FLOAT_SPEC
        want = {line_of(src, at)} if at else set()
    static = _recompile_lines(_scan(tmp_path, src))
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert seen == want
    assert static == want


@pytest.mark.torch
def test_the_fixture_moe_expert_recompiles_where_the_scan_says(tmp_path: Path) -> None:
    """``fixtures/models/data_dependent_model.py``: ``MoE.forward`` breaks in its loop over the
    experts (``nonzero``), so torch runs it eagerly and compiles ``Expert.forward`` as a frame of
    its own, called with ``x[rows]`` of another size per expert: torch 2.13 recompiles it at its
    ``def`` (``tensor 'x' size mismatch``), where the scan without a spec reports CL303."""
    pytest.importorskip("torch")
    import shutil

    from compilelint.dynamic.api import run_dynamic

    src_path = ROOT / "fixtures" / "models" / "data_dependent_model.py"
    shutil.copy(src_path, tmp_path / "data_dependent_model.py")
    src = src_path.read_text(encoding="utf-8")
    spec = {"model": "data_dependent_model.py:MoE", "inputs": [{"tensor": [16, 8]}], "seed": 0}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    want = line_of(src, "def forward(self, x):  # error: CL303")
    assert want in seen


def test_only_reads_on_every_path_to_the_change_count() -> None:
    """A read in an ``if``'s test, a ``for``'s iterable or a statement before the change
    counts; one in a branch's body, a loop's body (the change after the loop) or a lambda does
    not."""
    from compilelint.static.analysis.state import first_read_line, parse_source

    src = textwrap.dedent("""\
        class M:
            def forward(self, x, flag):
                f = lambda: self.n
                for i in range(self.n if flag else 2):
                    x = x + self.n
                if flag:
                    x = x * self.n
                else:
                    self.n += 1
                self.n += 1
                return x
        """)
    tree = parse_source(src)
    assert tree is not None
    assert first_read_line(tree, "n", 9) == 4  # the `for`'s iterable
    assert first_read_line(tree, "n", 10) == 4
    no_iter = src.replace("range(self.n if flag else 2)", "range(2)")
    tree = parse_source(no_iter)
    assert tree is not None
    assert first_read_line(tree, "n", 10) == 10  # loop body, branch body, lambda: not on every path
    assert first_read_line(tree, "n", 9) == 9
