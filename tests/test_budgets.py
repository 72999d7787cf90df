"""Budgets: --max-graph-breaks / --max-recompiles (and the config keys) against live dynamic runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compilelint.budgets import apply_budgets, evaluate, exceeded
from compilelint.model import Report, Summary

from .cli_invoke import invoke
from .report_blocks import extra_block

ROOT = Path(__file__).resolve().parent.parent
FIX = "fixtures/dynamic"


def test_evaluate_and_apply_without_torch() -> None:
    block = {"graph_break_count": 2, "recompile_count": 3, "error": None}
    r = evaluate(block, 2, 2)
    assert r["exceeded"] == [
        "recompile budget exceeded: the dynamic run observed 3 recompiles, max-recompiles allows 2"
    ]
    assert evaluate(block, 1, None)["exceeded"] == [
        "graph-break budget exceeded: the dynamic run observed 2 graph breaks, "
        "max-graph-breaks allows 1"
    ]
    base = Report("0", None, (), (), Summary(1, 1, 0, {}, 0.0), {"dynamic": block})
    out = apply_budgets(base, 0, 0, where="spec.json")
    assert exceeded(out) and [e.path for e in out.errors] == ["spec.json", "spec.json"]
    assert extra_block(out, "budgets")["graph_breaks"] == 2
    # no dynamic run, or a failed one: nothing to compare, nothing changes
    static = Report("0", None, (), (), Summary(1, 1, 0, {}, 0.0))
    assert apply_budgets(static, 0, 0) is static
    failed = Report(
        "0", None, (), (), Summary(1, 1, 0, {}, 0.0), {"dynamic": {**block, "error": {"x": 1}}}
    )
    assert apply_budgets(failed, 0, 0) is failed


def test_budget_flags_need_input_spec() -> None:
    code, out, err = invoke(["check", f"{FIX}/tensor_if.py", "--max-graph-breaks", "0"])
    assert code == 2 and out == ""
    assert err == (
        "compilelint: error: --max-graph-breaks and --max-recompiles need --input-spec or "
        "--trace (a run)\n"
    )
    code, _, err = invoke(["check", f"{FIX}/tensor_if.py", "--max-recompiles", "-1"])
    assert code == 2 and "-1 is not in the range x>=0" in err


def test_config_budgets_do_not_apply_to_static_runs(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nmax-graph-breaks = 0\nmax-recompiles = 0\n", encoding="utf-8"
    )
    (tmp_path / "m.py").write_text("import torch\n", encoding="utf-8")
    code, _, err = invoke(["check", ".", "--no-cache"], tmp_path)
    assert code == 0, err


def test_config_budget_values_are_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nmax-graph-breaks = true\n", encoding="utf-8"
    )
    code, _, err = invoke(["check", "."], tmp_path)
    assert code == 2 and "max-graph-breaks must be a non-negative integer" in err


@pytest.mark.torch
def test_graph_break_budget_live() -> None:
    pytest.importorskip("torch")
    args = ["check", f"{FIX}/tensor_if.py", "--input-spec", f"{FIX}/tensor_if.json"]
    args += ["--fail-on", "never", "--no-cache", "--format", "json"]
    code, out, _ = invoke([*args, "--max-graph-breaks", "0"])
    data = json.loads(out)
    assert code == 1  # the budget fails the run even with --fail-on never
    assert data["dynamic"]["graph_break_count"] == 1
    assert data["budgets"] == {
        "max_graph_breaks": 0,
        "graph_breaks": 1,
        "max_recompiles": None,
        "recompiles": 0,
        "exceeded": [
            "graph-break budget exceeded: the dynamic run observed 1 graph break, "
            "max-graph-breaks allows 0"
        ],
    }
    assert data["errors"] == [
        {
            "path": f"{FIX}/tensor_if.json",
            "message": data["budgets"]["exceeded"][0],
            "kind": "budget",
        }
    ]
    code, out, _ = invoke([*args, "--max-graph-breaks", "1"])
    assert code == 0 and json.loads(out)["budgets"]["exceeded"] == []


@pytest.mark.torch
def test_recompile_budget_live_from_config(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    cfg = tmp_path / "pyproject.toml"
    args = ["check", f"{FIX}/batch_shapes.py", "--input-spec", f"{FIX}/batch_shapes.json"]
    args += ["--fail-on", "never", "--no-cache", "--config", str(cfg)]
    cfg.write_text("[tool.compilelint]\nmax-recompiles = 1\n", encoding="utf-8")
    code, out, _ = invoke(args)
    assert code == 1
    assert (
        "error: recompile budget exceeded: the dynamic run observed 2 recompiles, "
        "max-recompiles allows 1" in out
    )
    # the flag overrides the config
    code, out, _ = invoke([*args, "--max-recompiles", "2"])
    assert code == 0, out
    assert "budget exceeded" not in out
