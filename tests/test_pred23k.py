"""Issue 23, pred23k: recompile kinds of the second development set (dev2), each predicted from
the model of values and guards and checked against torch 2.13.

- **Index tuples select rows** (``analysis/sizes.py``): ``torch.where(mask)`` with one argument
  and ``nonzero(as_tuple=True)`` give index tensors whose length follows the data, and
  ``(idx == i).any(dim=-1)`` is a mask of rows: an expert called in a loop (a frame of its own
  where the loop breaks) with ``x[rows]`` gets another size per iteration and recompiles once,
  at its ``def``.
- **A ``while`` test that branches on a tensor** (``analysis/carried.py``,
  ``predict._while_resume_recompiles``): torch re-enters the resume function of the loop's body
  on every iteration; the Python numbers the body carries from its previous value recompile it
  once, where the body first reads one of them.
- **An empty dict of the module that traced code fills** (``predict.dict_state``): guarded where
  traced code first reads it (``not self.cache``), so the second call recompiles there; a
  ``Counter`` is guarded by ``len(self.c) != 0``, reported at the ``def``.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan
from tests.pred_helpers import line_of, predicted_recompile_lines, torch_recompile_lines

from .report_blocks import extra_block

TORCH = "from collections import Counter, defaultdict\n\nimport torch\nfrom torch import nn\n"

# ---------------------------------------------------------------------------- expert frames
EXPERTS = TORCH + textwrap.dedent("""
    class Expert(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.experts = nn.ModuleList([Expert() for _ in range(3)])

        def forward(self, x):
            route = torch.arange(x.shape[0]).float().sqrt().long()  # 0,1,1,1,2,2: 1, 3, 2 rows
            out = torch.zeros_like(x)
            for i, expert in enumerate(self.experts):
                SELECT
            return out
    """)
_DEF = "def forward(self, x):\n        return self.fc(x)"
# VALID: `torch.where(mask)` unpacked (DeepSeek-V3's MoE)
WHERE_TUPLE = EXPERTS.replace(
    "SELECT",
    "rows, = torch.where(route == i)\n            out[rows] += expert(x[rows])",
)
# VALID: an element of `nonzero(as_tuple=True)` (fairseq's top-2 gating)
NONZERO_TUPLE = EXPERTS.replace(
    "SELECT",
    "rows = (route == i).nonzero(as_tuple=True)[0]\n"
    "            if rows.numel() == 0:\n"
    "                continue\n"
    "            out.index_add_(0, rows, expert(x[rows]))",
)
# VALID: a row mask reduced over a dim (the blog-post MoE)
ANY_MASK = EXPERTS.replace(
    "SELECT",
    "mask = (torch.stack([route, route], -1) == i).any(dim=-1)\n"
    "            if mask.any():\n"
    "                out[mask] += expert(x[mask])",
)
# INVALID: the three-argument `torch.where` keeps the size: one graph per expert frame
WHERE_SELECT = EXPERTS.replace(
    "SELECT",
    "mask = route == i\n"
    "            if mask.any():\n"
    "                out = out + expert(torch.where(mask[:, None], x, 0.0))",
)
# INVALID: `.any()` without a dim is one flag, not a mask of rows
ANY_FLAG = EXPERTS.replace(
    "SELECT",
    "hit = (route == i).any()\n"
    "            if hit:\n"
    "                out = out + expert(x[route.clamp(max=0)])",
)
EXPERT_CASES: dict[str, tuple[str, str | None]] = {
    "where_tuple": (WHERE_TUPLE, _DEF),
    "nonzero_tuple": (NONZERO_TUPLE, _DEF),
    "any_mask": (ANY_MASK, _DEF),
    "where_select": (WHERE_SELECT, None),
    "any_flag": (ANY_FLAG, None),
}
EXPERT_SPEC: dict[str, Any] = {"inputs": [{"tensor": [6, 4]}]}


def _def_line(src: str, at: str) -> int:
    return line_of(src, at.split("\n")[0]) if "\n" not in at else _block_line(src, at)


def _block_line(src: str, block: str) -> int:
    """The line of the first line of ``block`` in ``src`` (a block of several lines)."""
    offset = src.index(block)
    return src.count("\n", 0, offset) + 1


@pytest.mark.parametrize("name", sorted(EXPERT_CASES))
def test_an_expert_given_selected_rows_recompiles_at_its_def(tmp_path: Path, name: str) -> None:
    src, at = EXPERT_CASES[name]
    want = {_def_line(src, at)} if at else set()
    assert predicted_recompile_lines(tmp_path, src, EXPERT_SPEC) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(EXPERT_CASES))
def test_the_expert_frames_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at = EXPERT_CASES[name]
    want = {_def_line(src, at)} if at else set()
    assert torch_recompile_lines(tmp_path, src, EXPERT_SPEC) == want


# ---------------------------------------------------------------------------- while tests
LOOP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(4, 1)

        def forward(self, x):
            t = self.score(x).squeeze(-1).abs() + 1.0  # all positive: six iterations
            total = torch.zeros(())
            BODY
            return total
    """)
# VALID: the test branches on `t[i]`; `i` is read first by `total + t[i]`
WHILE_COUNTER = LOOP.replace(
    "BODY",
    "i = 0\n"
    "        while i < t.size(0) and t[i] > 0:\n"
    "            total = total + t[i]\n"
    "            i += 1",
)
# VALID: two carried numbers, one recompile: torch checks the int's guard first (`n == 0` where
# `n += 1` reads it), though the body reads the float `w` earlier
WHILE_TWO = LOOP.replace(
    "BODY",
    "n = 0\n"
    "        w = 1.0\n"
    "        while t.sum() > 0:\n"
    "            t = t - 0.5\n"
    "            total = total + w\n"
    "            w = w * 0.5\n"
    "            n += 1",
)
# VALID: nothing reads the counter before its step (`n += 1` is the read)
WHILE_STEP_ONLY = LOOP.replace(
    "BODY",
    "n = 0\n"
    "        while t.sum() > 0:\n"
    "            t = t - 0.5\n"
    "            total = total + t.sum()\n"
    "            n += 1",
)
# INVALID: the `while` inside a `for`: the break in the outer loop skips the frame
WHILE_IN_FOR = LOOP.replace(
    "BODY",
    "for j in range(2):\n"
    "            n = 0\n"
    "            while t.sum() > j:\n"
    "                t = t - 0.5\n"
    "                total = total + n\n"
    "                n += 1",
)
# INVALID: the branch on a tensor in the body, not the test: dynamo skips the frame
WHILE_BODY_BRANCH = LOOP.replace(
    "BODY",
    "i = 0\n"
    "        while i < 4:\n"
    "            if t[i] > 0:\n"
    "                total = total + t[i]\n"
    "            i += 1",
)
# INVALID: a number the body sets anew, not carried over (the same on every entry)
WHILE_RESET = LOOP.replace(
    "BODY",
    "while t.sum() > 0:\n"
    "            k = 2\n"
    "            t = t - k\n"
    "            total = total + t.sum()",
)
WHILE_CASES: dict[str, tuple[str, str | None]] = {
    "counter": (WHILE_COUNTER, "total = total + t[i]"),
    "two": (WHILE_TWO, "n += 1"),
    "step_only": (WHILE_STEP_ONLY, "n += 1"),
    "in_for": (WHILE_IN_FOR, None),
    "body_branch": (WHILE_BODY_BRANCH, None),
    "reset": (WHILE_RESET, None),
}
WHILE_SPEC: dict[str, Any] = {"inputs": [{"tensor": [6, 4]}]}


@pytest.mark.parametrize("name", sorted(WHILE_CASES))
def test_a_while_test_on_a_tensor_recompiles_on_its_carried_numbers(
    tmp_path: Path, name: str
) -> None:
    src, at = WHILE_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert predicted_recompile_lines(tmp_path, src, WHILE_SPEC) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(WHILE_CASES))
def test_the_while_loops_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at = WHILE_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert torch_recompile_lines(tmp_path, src, WHILE_SPEC) == want


def test_carried_numbers_are_numbers_the_body_rebinds_from_themselves() -> None:
    import ast

    from compilelint.static.analysis.carried import carried_numbers, first_read, number_names

    fn = ast.parse(
        textwrap.dedent("""
        def f(x, m):
            i = 0
            s = 0.0
            n = x.shape[0]
            h = x
            k = len(m)
            while h.sum() > 0:
                h = h - 1
                s = s + i * 0.5
                i += 1
                k = 3
                j = i + 1
        """)
    ).body[0]
    loop = next(n for n in ast.walk(fn) if isinstance(n, ast.While))
    assert number_names(fn) >= {"i", "s", "n", "k", "j"}
    assert "h" not in number_names(fn) and "x" not in number_names(fn)
    assert carried_numbers(fn, loop) == {"i", "s", "j"}
    assert first_read(loop, {"i", "s", "j"}) == (10, "s")


# ---------------------------------------------------------------------------- dict state
DICT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            INIT

        def forward(self, x):
            y = self.fc(x)
            BODY
            return y
    """)
# VALID: a cache keyed by a size, filled on the first call: `not ___dict_contains(4, ...)`
DICT_CACHE = DICT.replace("INIT", "self.cache = {}").replace(
    "BODY",
    "n = x.shape[-1]\n"
    "        if n not in self.cache:\n"
    "            self.cache[n] = torch.arange(n)\n"
    "        y = y + self.cache[n]",
)
# VALID: a defaultdict counting sizes (`not self.hist`, then its values)
DICT_COUNTS = DICT.replace("INIT", "self.hist = defaultdict(int)").replace(
    "BODY", "self.hist[x.shape[0]] += 1"
)
# VALID: a Counter updated: `len(self.seen) != 0`, reported at the `def`
COUNTER_UPDATE = DICT.replace("INIT", "self.seen = Counter()").replace(
    "BODY", "self.seen.update([x.shape[0]])"
)
# INVALID: a dict made anew on every call (a new object, filled the same way)
DICT_REBOUND = DICT.replace("INIT", "self.stats = {}").replace(
    "BODY", 'self.stats = {}\n        self.stats["n"] = x.shape[0]'
)
# INVALID: a dict only read (never filled in traced code)
DICT_READ = DICT.replace("INIT", "self.table = {}").replace("BODY", "y = y + len(self.table)")
DICT_CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "cache": (DICT_CACHE, ("if n not in self.cache",)),
    "counts": (DICT_COUNTS, ("self.hist[x.shape[0]] += 1",)),
    # the Counter's length at the `def`, then its count at the update (`collections`' frame
    # called from that line)
    "counter_update": (COUNTER_UPDATE, ("def forward", "self.seen.update(")),
    "rebound": (DICT_REBOUND, ()),
    "read_only": (DICT_READ, ()),
}
DICT_SPEC: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}], "calls": 3}


@pytest.mark.parametrize("name", sorted(DICT_CASES))
def test_an_empty_dict_filled_in_traced_code_recompiles_at_its_first_read(
    tmp_path: Path, name: str
) -> None:
    src, ats = DICT_CASES[name]
    want = {line_of(src, a) for a in ats}
    assert predicted_recompile_lines(tmp_path, src, DICT_SPEC) == want


def test_one_call_finds_the_dict_empty(tmp_path: Path) -> None:
    # INVALID: one call compiles once, with the dict as it was
    assert predicted_recompile_lines(tmp_path, DICT_CACHE, {**DICT_SPEC, "calls": 1}) == set()


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(DICT_CASES))
def test_the_dicts_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, ats = DICT_CASES[name]
    want = {line_of(src, a) for a in ats}
    assert torch_recompile_lines(tmp_path, src, DICT_SPEC) == want


# ---------------------------------------------------------------------------- without a spec
def _scan_cl303(tmp_path: Path, src: str) -> set[int]:
    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        got = scan(["m.py"], load_config(["m.py"]), no_cache=True).findings
    finally:
        os.chdir(old)
    return {f.line for f in got if f.rule == "CL303"}


SPEC_FREE_CASES: dict[str, tuple[str, str | None]] = {
    "where_tuple": (WHERE_TUPLE, "def forward(self, x):\n        return self.fc(x)"),
    "where_select": (WHERE_SELECT, None),
    "counter": (WHILE_COUNTER, "total = total + t[i]"),
    "in_for": (WHILE_IN_FOR, None),
    # dict state is predicted with a spec only (the rules' fixed examples keep such caches)
    "cache": (DICT_CACHE, None),
    "rebound": (DICT_REBOUND, None),
}


@pytest.mark.parametrize("name", sorted(SPEC_FREE_CASES))
def test_the_kinds_without_a_spec(tmp_path: Path, name: str) -> None:
    src, at = SPEC_FREE_CASES[name]
    want = {_def_line(src, at)} if at else set()
    assert _scan_cl303(tmp_path, src) == want


# ---------------------------------------------------------------------------- drawn in the graph
def _cli_recompile_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    """The prediction's recompile lines the way the CLI makes it (``api.check`` with the
    spec: the spec's ``mode`` sets the compile context's)."""
    from compilelint.api import check

    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = check(
            ["m.py"], load_config(["m.py"]), no_cache=True, predict_spec=str(tmp_path / "spec.json")
        )
    finally:
        os.chdir(old)
    sites = extra_block(report, "prediction")["recompile_sites"]
    return {r["line"] for r in sites if r["path"].endswith("m.py")}


DRAWN = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.kept = 1.0

        def forward(self, x):
            h = self.fc(x)
            DRAW
            self.kept = float(keep.float().mean())
            return h * keep
    """)
# VALID: the graph draws the mask (train mode): the number differs on every call, even with the
# spec's one tensor: the resume function recompiles once where it stores the number
DRAWN_TRAIN = DRAWN.replace(
    "DRAW",
    "keep = torch.ones(x.shape[0], 1)\n"
    "        if self.training:\n"
    "            keep = torch.rand(x.shape[0], 1) > 0.5",
)
# INVALID: no draw: the same tensor on every call gives the same number
NOT_DRAWN = DRAWN.replace("DRAW", "keep = h > 0")
# INVALID: the graph draws, but the number does not read the draw (only the output does)
NOT_READ = DRAWN.replace(
    "DRAW", "noise = torch.rand(x.shape[0], 1)\n        keep = h > 0\n        h = h + noise"
)
DRAWN_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "train": (DRAWN_TRAIN, "self.kept = float(", {"mode": "train"}),
    "draw_not_read": (NOT_READ, None, {"mode": "train"}),
    # INVALID: the draw is training-only and the model is in eval mode
    "eval": (DRAWN_TRAIN, None, {"mode": "eval"}),
    "not_drawn": (NOT_DRAWN, None, {"mode": "train"}),
}
DRAWN_SPEC: dict[str, Any] = {"inputs": [{"tensor": [8, 4]}], "calls": 3}


@pytest.mark.parametrize("name", sorted(DRAWN_CASES))
def test_a_number_read_from_a_drawn_tensor_changes_between_calls(tmp_path: Path, name: str) -> None:
    src, at, spec = DRAWN_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert _cli_recompile_lines(tmp_path, src, {**DRAWN_SPEC, **spec}) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(DRAWN_CASES))
def test_the_drawn_numbers_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at, spec = DRAWN_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert torch_recompile_lines(tmp_path, src, {**DRAWN_SPEC, **spec}) == want


# ---------------------------------------------------------------------------- strings
TASK = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.head_cls = nn.Linear(4, 3)
            self.head_reg = nn.Linear(4, 1)

        def forward(self, x, task):
            READ
            return out.log_softmax(-1) if task == "cls" else out
    """)
# VALID: the f-string reads `task` first: torch's `task == 'cls'` is reported there
TASK_FSTRING = TASK.replace("READ", 'out = getattr(self, f"head_{task}")(x)')
# VALID too: nothing reads it before the branch, which is then its first read
TASK_BRANCH = TASK.replace("READ", "out = self.head_cls(x)")
STRING_CASES: dict[str, tuple[str, str]] = {
    "fstring": (TASK_FSTRING, 'getattr(self, f"head_{task}")'),
    "branch": (TASK_BRANCH, 'if task == "cls"'),
}
STRING_SPEC: dict[str, Any] = {
    "inputs": [{"tensor": [2, 4]}],
    "kwargs": {"task": "cls"},
    "variants": [{"inputs": [{"tensor": [2, 4]}], "kwargs": {"task": "reg"}}],
}


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_a_string_is_guarded_at_its_first_read(tmp_path: Path, name: str) -> None:
    src, at = STRING_CASES[name]
    assert predicted_recompile_lines(tmp_path, src, STRING_SPEC) == {line_of(src, at)}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_the_strings_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at = STRING_CASES[name]
    assert torch_recompile_lines(tmp_path, src, STRING_SPEC) == {line_of(src, at)}


# ---------------------------------------------------------------------------- shared state
STATE = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.correct = 0
            self.seen = 0
            self.stage = 0
            self.k = 0

        def forward(self, x):
            y = self.fc(x)
            BODY
            return y
    """)
# VALID: two counters every call steps: one recompile per call, reported at one guard
TWO_COUNTERS = STATE.replace("BODY", "self.correct += x.shape[0]\n        self.seen += 1")
# VALID: a stage stepped every other call, behind a step counter read first
STAGED = STATE.replace(
    "BODY",
    "self.seen += 1\n"
    "        if self.seen % 2 == 0:\n"
    "            self.stage += 1\n"
    "        y = y * (1 + 0.1 * self.stage)",
)
# VALID: `self.correct` is read before the `.item()` break in its statement, in the frame that
# runs first: its guard fails first
BREAK_BETWEEN = STATE.replace(
    "BODY", "self.correct += int(y.sum().item() > 0)\n        self.seen += 1"
)
# INVALID (no shared line): a counter stepped every other call whose guard sorts first
# (`self.k`): on the calls where it changes torch reports its guard, on the others `self.seen`'s
SHORT_FIRST = STATE.replace(
    "BODY",
    "y = y * (1 + 0.1 * self.k)\n"
    "        self.seen += 1\n"
    "        if self.seen % 2 == 0:\n"
    "            self.k += 1",
)
SAME_COUNTER = STATE.replace(
    "BODY", "self.seen += 1\n        y = y * 2\n        self.seen = self.seen + x.shape[0]"
)
STATE_CASES: dict[str, tuple[str, set[str]]] = {
    # torch sorts a frame's guards by the length of their name: `self.seen` comes first
    "two_counters": (TWO_COUNTERS, {"self.seen += 1"}),
    "staged": (STAGED, {"self.seen += 1"}),
    # the counter read before a break is guarded in the frame that runs first
    "break_between": (BREAK_BETWEEN, {"self.correct += int(y.sum().item() > 0)"}),
    # one counter changed twice: one value, one guard, at its first read
    "same_counter": (SAME_COUNTER, {"self.seen += 1"}),
    "short_first": (SHORT_FIRST, {"y = y * (1 + 0.1 * self.k)", "self.seen += 1"}),
}
STATE_SPEC: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}], "calls": 4}


def _state_lines(tmp_path: Path, src: str) -> set[int]:
    """The recompile lines of CL501's findings as the oracle reads them (``guard_line``, else
    ``line``)."""
    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        got = scan(["m.py"], load_config(["m.py"]), no_cache=True).findings
    finally:
        os.chdir(old)
    return {f.guard_line or f.line for f in got if f.rule == "CL501"}


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_state_changed_on_the_same_calls_shares_one_line(tmp_path: Path, name: str) -> None:
    src, ats = STATE_CASES[name]
    assert _state_lines(tmp_path, src) == {line_of(src, a) for a in ats}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_the_shared_state_matches_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, ats = STATE_CASES[name]
    assert torch_recompile_lines(tmp_path, src, STATE_SPEC) == {line_of(src, a) for a in ats}


# ---------------------------------------------------------------------------- specialised ints
STEPS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.v = nn.Linear(4, 4)

        def forward(self, x, num_steps):
            READ
            for i in range(num_steps):
                x = x + dt * self.v(x)
            return x
    """)
# VALID: read first by `1.0 / num_steps`: the first recompile there, the later ones at `range`
STEPS_READ = STEPS.replace("READ", "dt = 1.0 / num_steps")
# VALID: `range` is the first read: every recompile there
STEPS_RANGE = STEPS.replace("READ", "dt = 0.25")
STEPS_CASES: dict[str, tuple[str, set[str]]] = {
    "read_first": (STEPS_READ, {"dt = 1.0 / num_steps", "for i in range(num_steps)"}),
    "range_first": (STEPS_RANGE, {"for i in range(num_steps)"}),
}
STEPS_SPEC: dict[str, Any] = {
    "inputs": [{"tensor": [2, 4]}, 4],
    "variants": [{"inputs": [{"tensor": [2, 4]}, 6]}, {"inputs": [{"tensor": [2, 4]}, 3]}],
}


@pytest.mark.parametrize("name", sorted(STEPS_CASES))
def test_a_specialised_int_recompiles_first_at_its_first_read(tmp_path: Path, name: str) -> None:
    src, ats = STEPS_CASES[name]
    assert predicted_recompile_lines(tmp_path, src, STEPS_SPEC) == {line_of(src, a) for a in ats}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(STEPS_CASES))
def test_the_specialised_ints_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, ats = STEPS_CASES[name]
    assert torch_recompile_lines(tmp_path, src, STEPS_SPEC) == {line_of(src, a) for a in ats}
