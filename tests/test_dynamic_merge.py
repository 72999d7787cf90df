"""Merging static findings with observations, and ranking (pure; uses recorded runs)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

from compilelint.catalog import load_catalog
from compilelint.dynamic.api import build_result
from compilelint.merge import NOT_REACHED, merge_findings
from compilelint.model import Finding
from compilelint.rank import rank_findings

ROOT = Path(__file__).resolve().parent.parent
REC = sorted((ROOT / "fixtures" / "dynamic" / "recorded").glob("torch-*"))[-1]
CAT = load_catalog()


def result(name: str):
    return build_result(json.loads((REC / f"{name}.json").read_text())["raw"], str(ROOT))


def static(rule: str, path: str, line: int) -> Finding:
    r = CAT.rules[rule]
    return Finding(
        rule=rule,
        name=r.name,
        path=path,
        line=line,
        col=0,
        end_line=line,
        end_col=1,
        severity=r.severity,
        message="predicted",
        fix="",
    )


def test_static_finding_on_observed_line_becomes_both() -> None:
    res = result("tensor_if")
    out = merge_findings(
        [static("CL101", "fixtures/dynamic/tensor_if.py", 12)],
        res.breaks,
        res.recompiles,
        CAT,
        root=str(ROOT),
        reached=res.reached,
    )
    [f] = out
    assert (f.stage, f.gb_type, f.gb_id, f.count) == (
        "both",
        "Data-dependent branching",
        "GB0170",
        1,
    )
    assert f.hints


def test_unexplained_break_becomes_catch_all_dynamic_finding() -> None:
    res = result("deepcopy_call")
    [b] = res.breaks
    [f] = merge_findings([], res.breaks, (), CAT, root=str(ROOT))
    assert f.rule == (CAT.by_gb_type(b.gb_type) or ("CL002",))[0]
    assert (f.stage, f.path, f.line) == ("dynamic", "fixtures/dynamic/deepcopy_call.py", 13)
    assert "clone" in f.fix
    future = dataclasses.replace(b, gb_type="A graph break from a future torch", gb_id="GB9999")
    [g] = merge_findings([], [future], (), CAT, root=str(ROOT))
    assert (g.rule, g.stage, g.gb_id) == ("CL002", "dynamic", "GB9999")
    assert "A graph break from a future torch" in g.message


def test_recompiles_become_cl003_with_specific_fix() -> None:
    res = result("batch_shapes")
    out = merge_findings([], res.breaks, res.recompiles, CAT, root=str(ROOT), reached=res.reached)
    assert {f.rule for f in out} == {"CL003"}
    assert any("mark_dynamic(ids, 0)" in f.fix for f in out)
    res = result("int_counter")
    [f] = merge_findings([], res.breaks, res.recompiles, CAT, root=str(ROOT))
    assert (
        f.count == 8 and "recompile limit" in f.message and "allow_unspec_int_on_nn_module" in f.fix
    )


def test_static_finding_not_reached_says_so() -> None:
    res = result("clean_mlp")
    [f] = merge_findings(
        [static("CL103", "fixtures/dynamic/item_call.py", 12)],
        res.breaks,
        res.recompiles,
        CAT,
        root=str(ROOT),
        reached=res.reached,
    )
    assert f.stage == "static" and f.message.endswith(NOT_REACHED)


def test_rank_loop_break_first_then_observed_then_recompiles_then_static() -> None:
    loop, rec, item = result("loop_break"), result("int_counter"), result("item_call")
    breaks = [*loop.breaks, *item.breaks]
    out = merge_findings(
        [static("CL101", "fixtures/dynamic/clean_mlp.py", 13)],
        breaks,
        rec.recompiles,
        CAT,
        root=str(ROOT),
    )
    ranked, why = rank_findings(out, breaks, root=str(ROOT))
    assert [f.rank for f in ranked] == list(range(1, len(ranked) + 1))
    assert ranked[0].path.endswith("loop_break.py") and "break_in_loop" in why[0]["parts"]
    assert ranked[1].path.endswith("item_call.py")
    assert ranked[2].rule == "CL003"
    assert ranked[-1].stage == "static"
    assert all(a.impact >= b.impact for a, b in itertools.pairwise(ranked))
