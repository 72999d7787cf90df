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


def _line_of(src: str, text: str) -> int:
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


def _breaks(src: str) -> dict[int, int | None]:
    """``{line: behind}`` of the break findings (CL1xx, CL2xx) of a scan of the source."""
    return {f.line: f.behind for f in _scan(src) if f.rule[:3] in ("CL1", "CL2")}


def test_a_break_behind_a_logging_call_in_a_loop_is_found_and_marked() -> None:
    log, branch = _line_of(LOG_IN_LOOP, "logger.debug"), _line_of(LOG_IN_LOOP, "isfinite")
    assert _breaks(LOG_IN_LOOP) == {log: None, branch: log}
    log, branch = _line_of(LOG_UNDER_IF, "logger.debug"), _line_of(LOG_UNDER_IF, "isfinite")
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
    log, branch = _line_of(LOG_IN_LOOP, "logger.debug"), _line_of(LOG_IN_LOOP, "isfinite")
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
        assert seen == {_line_of(src, "isfinite")} and seen < want
    else:
        assert seen == want


@pytest.mark.torch
def test_the_cnn_bench_fixture_matches_torch(tmp_path: Path) -> None:
    """``fixtures/bench/cnn.py``: torch reports the logging call (line 52) and not the check
    on the activations after it (line 53, behind it); both stay findings (its markers)."""
    pytest.importorskip("torch")
    src = (ROOT / "fixtures" / "bench" / "cnn.py").read_text(encoding="utf-8")
    log, check = _line_of(src, "logger.debug"), _line_of(src, "torch.isfinite")
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
