"""Readable guards (issue 14, item 3): torch's guard text in the user's names, with why it
failed; invalidated cache entries are not failed guards; predicted recompiles join observed
ones (pure; no torch)."""

from __future__ import annotations

import json
from pathlib import Path

from compilelint.catalog import load_catalog
from compilelint.dynamic.api import build_result
from compilelint.dynamic.capture import ObservedRecompile, group_recompiles
from compilelint.dynamic.guards import describe, map_names
from compilelint.merge import merge_findings
from compilelint.model import Finding

ROOT = Path(__file__).resolve().parent.parent
DEMO_RAW = ROOT / "tests" / "data" / "demo_dynamic_raw.json"
SRC = """import torch


class M(torch.nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        if x.norm() > 1.0:
            x = x * 2
        self.seen.append(1)
        return x / max(peak, 1.0)
"""


def test_torch_sources_map_to_user_names() -> None:
    assert map_names("L['self']._modules['lin']._parameters['weight']") == "self.lin.weight"
    assert map_names("G['__import_torch'].float32 == G['cfg'].dtype") == (
        "torch.float32 == cfg.dtype"
    )
    assert map_names("___check_obj_id(L['self'].cache, 140011)") == (
        "self.cache is the object seen when compiling"
    )
    assert map_names("not ___dict_contains('k', L['d'])") == "'k' not in d"
    assert map_names("___check_type_id(L['y'], 9393)") == "type(y) is the type seen when compiling"


def test_stack_value_of_a_resume_function_is_the_break_lines_expression(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(SRC)
    g = describe(
        "___stack0 == 0.7556631565093994",
        function="torch_dynamo_resume_in_forward_at_6",
        path=str(src),
        line=7,
        break_lines=frozenset({6, 7}),
    )
    assert g.text == "x.abs().max().item() == 0.7556631565093994"
    assert "graph break at line 6" in g.explanation
    assert "every call recompiles" in g.explanation and g.every_call
    named = describe(
        "peak == 0.7556631565093994",
        function="torch_dynamo_resume_in_forward_at_7",
        path=str(src),
        line=10,
        break_lines=frozenset({6, 7}),
    )
    assert named.text == "peak == 0.7556631565093994"
    assert "the break at line 6 produced from `x.abs().max().item()`" in named.explanation
    assert named.every_call
    assert describe("len(L['self'].seen) == 1").text == "len(self.seen) == 1"


def test_invalidated_cache_entry_is_not_a_failed_guard() -> None:
    g = describe("Cache line invalidated because L['___stack0'] got deallocated")
    assert g.invalidated and "not a failed guard" in g.explanation
    real = (
        "0/1: len(L['self'].seen) == 1\nUser stack trace:\n  File \"/p/m.py\", line 9, in forward"
    )
    events = [
        {
            "reasons": ["0/2: Cache line invalidated because L['___stack0'] got deallocated", real],
            "function": {"name": "forward", "path": "/p/m.py", "line": 5},
        }
    ]
    [r] = group_recompiles(events, [], "/p")
    assert r.guard == "len(L['self'].seen) == 1"


def test_demo_guards_are_readable_in_the_json() -> None:
    raw = json.loads(DEMO_RAW.read_text())
    res = build_result(raw, str(ROOT))
    by_line = {r["line"]: r for r in res.block["recompiles"]}
    r41 = by_line[41]
    assert r41["guard"].startswith("___stack0 ==")  # torch's text is kept
    assert r41["guard_readable"].startswith("h.abs().max().item() ==")
    assert "line 40" in r41["explanation"] and r41["every_call"]
    assert "`peak` is a Python float" in by_line[44]["explanation"]


def test_predicted_recompile_joins_the_observed_one_on_the_same_state(tmp_path: Path) -> None:
    cat = load_catalog()
    src = tmp_path / "m.py"
    src.write_text(SRC)
    rule = cat.rules["CL501"]
    predicted = Finding(
        rule="CL501",
        name=rule.name,
        path="m.py",
        line=9,
        col=9,
        end_line=9,
        end_col=30,
        severity=rule.severity,
        message="`self.seen` is a list appended to",
        fix="",
        line_text="        self.seen.append(1)",
    )
    rec = ObservedRecompile(
        function="forward",
        path=str(src),
        line=10,  # torch names the line that read the list, not the append
        guard="len(L['self'].seen) == 1",
        reason="",
        hint=None,
        count=3,
        hit_limit=False,
        readable="len(self.seen) == 1",
    )
    [f] = merge_findings([predicted], (), [rec], cat, root=str(tmp_path), reached={})
    assert (f.rule, f.stage, f.count, f.observed) == ("CL501", "both", 3, True)
    assert "not observed" not in f.message and "len(self.seen) == 1" in f.message


def test_a_guard_on_a_tensors_value_is_not_called_an_int_attribute() -> None:
    # torch 2.13 on diffusers' DDIM step with `for t in scheduler.timesteps`: the failing guard
    # is `L['timestep'].item() == 75` (the 0-d tensor's value, specialised where it is read)
    g = describe("L['timestep'].item() == 75")
    assert g.text == "timestep.item() == 75"
    assert "`timestep` is a 0-d tensor" in g.explanation
    assert "int attribute" not in g.explanation and not g.every_call
    attr = describe("L['self'].pos == 3")
    assert "Python int attribute" in attr.explanation and attr.every_call
    from compilelint.merge import recompile_fix

    def rec(guard: str, readable: str) -> ObservedRecompile:
        return ObservedRecompile("step", "/p/s.py", 9, guard, "", None, 2, False, readable=readable)

    fix = recompile_fix(rec("L['timestep'].item() == 75", g.text))
    assert "Keep `timestep` a tensor" in fix and "timestep.view(1)" in fix
    assert "Python scalar" in recompile_fix(rec("L['self'].pos == 3", attr.text))
