"""The fix corpus as a static oracle (issue 23, ``pred23e``): the scorer's matching, and the
lines the prediction names for guards torch reports without a user line (a tensor input's) or at
the first read of module state."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.predict import Prediction, first_read
from tests.pred_helpers import prediction

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import fix_corpus_predict as fcp  # noqa: E402

# ---------------------------------------------------------------------------- the scorer
MODEL = textwrap.dedent("""\
    # spec: {}
    import torch


    class M(torch.nn.Module):
        def forward(self, x, n):
            y = x.sum().item()
            if y > 0:
                x = x * n
            return x
    """)
KINDS = (frozenset({"CL101", "CL103"}), frozenset({"CL301", "CL303", "CL501"}))


def _finding(rule: str, line: int, path: str = "m.py") -> dict[str, Any]:
    return {"rule": rule, "line": line, "path": path}


def test_scorer_matches_lines_of_the_model_file_only() -> None:
    observed = [
        {"kind": "break", "gb_id": "GB0124", "line": 7},
        {"kind": "break", "gb_id": "GB0170", "line": 7},  # the same line twice: one line
        {"kind": "break", "gb_id": "GB0170", "line": 8},
        {"kind": "recompile", "gb_id": None, "line": 6},  # the def: a tensor input's guard
        {"kind": "recompile", "gb_id": None, "line": 9},
        {"kind": "recompile", "gb_id": None, "line": 40, "file": "lib.py"},
    ]
    report = {
        "findings": [
            _finding("CL103", 7),
            _finding("CL101", 10),  # a break line torch did not report
            _finding("CL101", 8, "other.py"),  # another file: not this model's line 8
            _finding("CL501", 9),
            _finding("CL303", 40, "/site-packages/lib.py"),
            _finding("CL402", 8),  # advice: neither a break nor a recompile
        ],
        "prediction": {"recompile_sites": [{"path": "m.py", "line": 6}]},
    }
    s = fcp.match(observed, report, "m.py", MODEL, KINDS)
    assert s.breaks == [7, 8] and s.found_breaks == [7, 10] and s.break_hit == [7]
    assert s.recompiles == [6, 9] and s.defs == [6]
    assert s.found_recompiles == [6, 9] and s.rec_hit == [6, 9]
    assert s.lib_recompiles == ["lib.py:40"] and s.lib_found == ["lib.py:40"]
    assert not s.clean and s.flagged
    t = fcp.totals([s])
    assert (t["brk"], t["brk_hit"], t["found"], t["rec"], t["rec_hit"]) == (2, 1, 2, 2, 2)
    assert (t["defs"], t["defs_hit"], t["lib"], t["lib_hit"]) == (1, 1, 1, 1)


def test_scorer_same_function_match_and_clean_models() -> None:
    observed = [{"kind": "recompile", "gb_id": None, "line": 9}]
    # a recompile predicted at another line of the same function: not a line match
    s = fcp.match(observed, {"findings": [_finding("CL301", 8)]}, "m.py", MODEL, KINDS)
    assert s.rec_hit == [] and s.rec_hit_fn == [9]
    # a predicted line outside every function matches nothing, even loosely
    s = fcp.match(observed, {"findings": [_finding("CL301", 2)]}, "m.py", MODEL, KINDS)
    assert s.rec_hit == [] and s.rec_hit_fn == []
    clean = fcp.match([], {"findings": [_finding("CL101", 7)]}, "m.py", MODEL, KINDS)
    assert clean.clean and clean.flagged
    quiet = fcp.match([], {"findings": [_finding("CL402", 7)]}, "m.py", MODEL, KINDS)
    assert quiet.clean and not quiet.flagged
    t = fcp.totals([clean, quiet])
    assert (t["clean"], t["clean_flagged"]) == (2, 1)
    broken = fcp.match([], {"error": "Traceback ..."}, "m.py", MODEL, KINDS)
    assert broken.error


def test_rule_kinds_of_the_catalogue() -> None:
    brk, rec = fcp.rule_kinds()
    assert {"CL101", "CL103", "CL201", "CL205"} <= brk
    assert {"CL301", "CL303", "CL304", "CL501"} <= rec
    assert not brk & rec and "CL402" not in brk | rec


def test_the_dev_set_loads_its_labels() -> None:
    models = fcp.load_set("dev")
    assert len(models) == 105
    assert sum(sum(o["kind"] == "break" for o in m.observed) for m in models) == 169
    assert all(m.path.is_file() for m in models)


def test_the_second_split_is_disjoint_and_covers_the_other_models() -> None:
    dev = {m.name for m in fcp.load_set("dev")}
    dev2 = {m.name for m in fcp.load_set("dev2")}
    held2 = {m.name for m in fcp.load_set("held2")}
    assert (len(dev2), len(held2)) == (175, 156)
    assert not (dev & dev2 or dev & held2 or dev2 & held2)
    folder = fcp.HERE / "fix_corpus"
    # fix development models written after the split (round 19's module-state models, round
    # 20's and 21's lengths and shapes models) are in no prediction set: they were written for
    # `fix` and never scored by the prediction
    lists = (
        "fix_corpus_dev_state.txt",
        "fix_corpus_dev_lens24.txt",
        "fix_corpus_dev_lens25.txt",
        "fix_corpus_dev_shapes25.txt",
    )
    later = {n for f in lists for n in (fcp.HERE / f).read_text(encoding="utf-8").split()}
    assert later and not later & (dev | dev2 | held2)
    assert dev | dev2 | held2 == {p.stem for p in folder.glob("*.py")} - later


# ---------------------------------------------------------------------------- guard lines
HEAD = "import torch\nfrom torch import nn\n"


def _predict(tmp_path: Path, src: str, spec: dict[str, Any]) -> Prediction:
    return prediction(tmp_path, src, spec)


def _t(*shape: int) -> dict[str, Any]:
    return {"tensor": list(shape)}


# VALID (the guard is reported where traced code first reads the state, before it changes it)
COUNTER_READ_FIRST = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = 0

        def forward(self, x):
            scale = 1.0 / (self.step + 1)
            self.step += 1
            return x * scale
    """)  # read at line 10, changed at line 11
QUEUE_TESTED_FIRST = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.queue = []

        def forward(self, x):
            if self.queue:
                x = x + self.queue[-1]
            self.queue.append(x.detach())
            if len(self.queue) > 2:
                self.queue.pop(0)
            return x * 2
    """)  # read at line 10, grown at line 12
# INVALID for a move: nothing reads the counter before it changes: the change is the read
COUNTER_CHANGED_FIRST = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = 0

        def forward(self, x):
            self.step += 1
            return x * self.step
    """)  # line 10
# a tensor input whose size changes: torch names the frame's `def`, not the first use
SHAPES = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            b, n, d = x.shape
            y = x.reshape(b * n, d)
            return y.sum(0)
    """)  # def at line 5, first use at line 6
STATE_CASES: dict[str, tuple[str, int, dict[str, Any]]] = {
    "counter_read_first": (COUNTER_READ_FIRST, 10, {"inputs": [_t(2, 4)], "calls": 3}),
    "queue_tested_first": (QUEUE_TESTED_FIRST, 10, {"inputs": [_t(2, 4)], "calls": 3}),
    "counter_changed_first": (COUNTER_CHANGED_FIRST, 10, {"inputs": [_t(2, 4)], "calls": 3}),
    "tensor_size": (
        SHAPES,
        5,
        {"inputs": [_t(2, 3, 4)], "variants": [{"inputs": [_t(2, 5, 4)]}]},
    ),
}


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_the_line_of_each_guard(tmp_path: Path, name: str) -> None:
    src, line, spec = STATE_CASES[name]
    p = _predict(tmp_path, src, {"model": "m.py:M", **spec})
    assert {s.line for s in p.recompile_sites} == {line}, p.recompile_sites


def test_first_read_takes_the_function_holding_the_change(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        textwrap.dedent("""\
        class A:
            def other(self):
                return self.step

            def forward(self, x):
                y = x
                self.step = self.step + 1
                return y
        """)
    )
    path = str(tmp_path / "m.py")
    assert first_read(path, "step", 7) == 7  # `other` reads it earlier, in another function
    assert first_read(path, "missing", 7) == 7
    assert first_read(str(tmp_path / "absent.py"), "step", 7) == 7


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_the_line_of_each_guard_matches_torch(tmp_path: Path, name: str) -> None:
    """The recompile lines torch 2.13 reports are the predicted ones."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src, line, spec = STATE_CASES[name]
    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert seen == {line}
