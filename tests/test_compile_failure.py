"""A compile failure is a finding (issue 18, item 4): torch.compile raising on a call that runs
eagerly becomes CL004, ranked first, at the user's line with the library frames; the exit code
is the findings' one, not 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compilelint.catalog import load_catalog
from compilelint.merge import compile_failure_finding
from compilelint.model import Finding
from compilelint.rank import rank_findings

from .cli_invoke import invoke

ROOT = Path(__file__).resolve().parent.parent
FIX = "fixtures/dynamic/compile_failure"


def test_failure_record_becomes_a_top_ranked_finding_with_library_frames() -> None:
    cat = load_catalog()
    failure = {
        "type": "InternalTorchDynamoError",
        "message": "torch._dynamo.exc.InternalTorchDynamoError: AttributeError: 'X' has no 'y'",
        "frame": {"path": f"{FIX}.py", "line": 19, "function": "forward"},
        "frames": [
            {"path": f"{FIX}.py", "line": 19, "function": "forward"},
            {"path": "/venv/site-packages/metrics/core.py", "line": 88, "function": "update"},
        ],
        "config": ["torch._dynamo.config.capture_scalar_outputs"],
    }
    f = compile_failure_finding(failure, cat, root=str(ROOT))
    assert f is not None
    assert (f.rule, f.path, f.line, f.severity, f.stage) == (
        "CL004",
        f"{FIX}.py",
        19,
        "error",
        "dynamic",
    )
    assert f.message.startswith(
        "torch.compile fails on this call inside /venv/site-packages/metrics/core.py:88 (update): "
        "InternalTorchDynamoError: AttributeError"
    )
    assert "torch.compiler.disable" in f.fix and "capture_scalar_outputs" in f.fix
    assert [fr.function for fr in f.frames] == ["forward", "update"]
    other = Finding("CL101", "x", f"{FIX}.py", 3, 1, 3, 2, "error", "m", "", stage="both", count=9)
    ranked, _ = rank_findings([other, f], root=str(ROOT))
    assert ranked[0].rule == "CL004"


@pytest.mark.torch
def test_compile_failure_is_reported_as_a_finding_not_a_tool_error(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "r.json"
    code, _, err = invoke(
        [
            "check",
            f"{FIX}.py",
            "--input-spec",
            f"{FIX}.json",
            "--no-cache",
            "--format",
            "json",
            "-o",
            str(out),
        ]
    )
    assert code == 1, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["dynamic"]["error"] is None and data["errors"] == []
    assert data["dynamic"]["compile_failure"]["eager_ok"] is True
    top = data["findings"][0]
    assert (top["rule"], top["path"], top["line"]) == ("CL004", f"{FIX}.py", 19)
    assert "TorchRuntimeError" in top["message"] and "no fake impl" in top["message"]


@pytest.mark.torch
def test_a_model_that_fails_eagerly_too_is_still_a_tool_error() -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    res = run_dynamic(
        str(ROOT / "fixtures" / "dynamic" / "errors" / "RaisesInForward.json"), cwd=str(ROOT)
    )
    assert res.error is not None and res.block["compile_failure"] is None
