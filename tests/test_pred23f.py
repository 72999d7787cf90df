"""Issue 23, pred23f: breaks torch never reaches because an earlier break in a loop makes dynamo
skip the frame (``static/analysis/loops.py``, applied to findings in ``engine``)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from compilelint.config import load_config
from compilelint.static.analysis.loops import shadowed_breaks
from compilelint.static.engine import scan
from tests.pred_helpers import EVERY_ITERATION, line_of

HEAD = "import torch\nfrom torch import nn\n"

# VALID: EVERY_ITERATION (pred_helpers), the first break on every iteration

# INVALID: the first break in the loop sits under an `if`: an iteration may skip it, so the
# later break is not hidden
UNDER_IF = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.debug = False

        def forward(self, x):
            out = []
            for row in x:
                if self.debug:
                    out.append(row.sum().item())
                out.append(int(row.argmax()))
            return out
    """)
# INVALID: no loop: each break starts a resume function that dynamo compiles, so both show
NO_LOOP = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            a = x.sum().item()
            b = int(x.argmax())
            return x * a * b
    """)
# INVALID: the later break is in a nested function: a frame of its own
NESTED = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            out = []
            for row in x:
                out.append(row.sum().item())

            def tail(y):
                return int(y.argmax())

            return out, tail(x)
    """)

# VALID for the body's break, INVALID for the `while` test: the test's break hides nothing
WHILE_TEST = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            n = 0
            while x.sum() > 0:
                x = x - 1
                n = n + int(x.max())
                if n > 5:
                    break
            return x * x.min().item()
    """)
# VALID: a branch on data at the top of a `for` body hides the later breaks
IF_TEST = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            out = []
            for row in x:
                if row.sum() > 0:
                    row = row * 2
                out.append(int(row.argmax()))
            return out, x.min().item()
    """)


def _lines(src: str) -> list[int]:
    """Lines of the break findings of ``M`` torch reports on this run (a scan of the source
    alone): those ``behind`` a loop break are found too, but reported by torch only later."""
    return sorted({f.line for f in _scan(src) if f.rule.startswith("CL1") and f.behind is None})


def _scan(src: str) -> list:  # type: ignore[type-arg]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "m.py"
        p.write_text(src)
        old = os.getcwd()
        os.chdir(tmp)
        try:
            return list(scan(["m.py"], load_config(["m.py"]), no_cache=True).findings)
        finally:
            os.chdir(old)


def test_shadowed_breaks_of_a_loop() -> None:
    first = line_of(EVERY_ITERATION, "row[keep]")
    later = line_of(EVERY_ITERATION, "int(row.argmax())")
    after = line_of(EVERY_ITERATION, "x.sum().item()")
    assert shadowed_breaks(EVERY_ITERATION, [first, later, after]) == {
        later: first,
        after: first,
    }
    assert (
        shadowed_breaks(
            UNDER_IF,
            [line_of(UNDER_IF, "row.sum().item()"), line_of(UNDER_IF, "row.argmax()")],
        )
        == {}
    )
    assert shadowed_breaks(NO_LOOP, [line_of(NO_LOOP, ".item()"), line_of(NO_LOOP, "argmax")]) == {}
    assert shadowed_breaks(NESTED, [line_of(NESTED, ".item()"), line_of(NESTED, "argmax")]) == {}


def test_a_statement_spanning_lines_breaks_at_its_first_candidate() -> None:
    src = HEAD + textwrap.dedent("""
        def f(xs, ms):
            res = []
            for x, m in zip(xs, ms):
                res.append(
                    {
                        "a": x[m],
                        "b": x[m].exp(),
                    }
                )
            return res
        """)
    a, b = line_of(src, '"a"'), line_of(src, '"b"')
    assert shadowed_breaks(src, [a, b]) == {b: a}


def test_a_nested_loop_header_is_on_every_iteration_a_while_test_is_not() -> None:
    """A break at a ``while`` test does not skip the frame: torch 2.13 reports the break in the
    loop's body too, and that one hides the break after the loop (checked against torch by
    ``test_the_break_lines_match_torch[while_test]``)."""
    src = WHILE_TEST
    w, y = line_of(src, "while"), line_of(src, "max()")
    tail = line_of(src, "x.min().item()")
    assert shadowed_breaks(src, [w, y, tail]) == {tail: y}
    src = HEAD + textwrap.dedent("""
        def f(x, ids):
            for b in range(2):
                for t in set(ids[b].tolist()):
                    z = int(x[t])
            return x
        """)
    inner, z = line_of(src, "set(ids"), line_of(src, "int(x[t])")
    assert shadowed_breaks(src, [inner, z]) == {z: inner}


def test_findings_keep_the_first_and_note_the_hidden_lines() -> None:
    found = [f for f in _scan(EVERY_ITERATION) if f.rule.startswith("CL1")]
    first = line_of(EVERY_ITERATION, "row[keep]")
    later = line_of(EVERY_ITERATION, "int(row.argmax())")
    after = line_of(EVERY_ITERATION, "x.sum().item()")
    # the later breaks stay findings (the constructs break once the first is fixed), marked
    # behind the first: torch reports only the first on this run
    assert sorted({f.line for f in found}) == [first, later, after]
    assert {f.line: f.behind for f in found} == {first: None, later: first, after: first}
    assert _lines(EVERY_ITERATION) == [first]
    assert any(f"lines {later}, {after}" in f.message for f in found if f.line == first)
    assert all(f"behind the break at line {first}" in f.message for f in found if f.behind)
    assert len(_lines(UNDER_IF)) == 2
    assert len(_lines(NO_LOOP)) == 2
    assert len(_lines(NESTED)) == 2


CASES = {
    "every_iteration": EVERY_ITERATION,
    "under_if": UNDER_IF,
    "no_loop": NO_LOOP,
    "while_test": WHILE_TEST,
    "if_test": IF_TEST,
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    """The break lines torch 2.13 reports are the static stage's."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    src = CASES[name]
    (tmp_path / "m.py").write_text(src)
    inp = {"tensor": [3], "data": [2.0, 1.0, 0.5]} if name == "while_test" else {"tensor": [3, 4]}
    spec = {"model": "m.py:M", "inputs": [inp], "calls": 1}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")}
    if name == "under_if":
        # `self.debug` is False: torch reaches only the break after the `if`, which stays
        # reported (the static stage cannot tell that the branch is never taken)
        assert seen == {line_of(src, "row.argmax()")} and seen < set(_lines(src))
    else:
        assert seen == set(_lines(src))


def test_a_comprehension_after_the_loop_is_a_frame_of_its_own() -> None:
    """INVALID for hiding: when dynamo skips the frame it still compiles the comprehension's
    frame (before Python 3.12; a generator expression always), so its break is reported
    (dev's ``tts_length_regulator_tolist:19``)."""
    src = HEAD + textwrap.dedent("""
        def f(xs, ms):
            out = []
            for x, m in zip(xs, ms):
                out.append(x[m])
            n = (int(o.argmax()) for o in out)
            return out, list(n), int(xs.argmax())
        """)
    first, gen, tail = (
        line_of(src, "x[m]"),
        line_of(src, "for o in out"),
        line_of(src, "int(xs.argmax())"),
    )
    assert shadowed_breaks(src, [first, gen, tail]) == {tail: first}


# VALID: the `random` module's draws other than uniform/randint/randrange, and `torch.save`,
# are functions dynamo skips (dev's `aug_random_choice_scale:20`, `debug_torch_save_dump:20`);
# INVALID: `random.uniform`/`random.randint` dynamo traces itself
DRAWS = HEAD + textwrap.dedent("""
    import os
    import random
    import tempfile

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.scales = [1, 2, 3]
            self.dir = tempfile.mkdtemp()

        def forward(self, x):
            x = x * random.uniform(0.5, 1.5)
            x = x * random.randint(1, 3)
            x = x * random.choice(self.scales)
            torch.save(x.detach(), os.path.join(self.dir, "x.pt"))
            return x + random.gauss(0.0, 1.0)
    """)


def test_random_draws_and_torch_save() -> None:
    got = {f.line for f in _scan(DRAWS) if f.rule == "CL205"}
    assert got == {
        line_of(DRAWS, "random.choice"),
        line_of(DRAWS, "torch.save"),
        line_of(DRAWS, "random.gauss"),
    }


@pytest.mark.torch
def test_random_draws_and_torch_save_match_torch(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(DRAWS)
    spec = {"model": "m.py:M", "inputs": [{"tensor": [3, 4]}], "calls": 1}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")}
    assert seen == {f.line for f in _scan(DRAWS) if f.rule == "CL205"}


# VALID: a size-like name (`num_rois`) read with tensor-only methods is a tensor input (dev's
# `roi_head_num_rois_int:15,16,19`); INVALID: a flag-like name used as a number stays one
USED_AS_TENSOR = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, num_rois):
            m = int(num_rois.max())
            return x[:, :m] * int(num_rois.sum())
    """)
USED_AS_NUMBER = HEAD + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, num_heads):
            return x.view(x.shape[0], int(num_heads), -1)
    """)


def test_a_parameter_used_as_a_tensor_is_one() -> None:
    assert _lines(USED_AS_TENSOR) == [
        line_of(USED_AS_TENSOR, "num_rois.max()"),
        line_of(USED_AS_TENSOR, "num_rois.sum()"),
    ]
    assert _lines(USED_AS_NUMBER) == []


@pytest.mark.torch
def test_a_parameter_used_as_a_tensor_matches_torch(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(USED_AS_TENSOR)
    spec = {
        "model": "m.py:M",
        "inputs": [{"tensor": [2, 8]}, {"tensor": [2], "dtype": "int64", "data": [3, 2]}],
        "calls": 1,
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    seen = {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")}
    assert seen == set(_lines(USED_AS_TENSOR))
