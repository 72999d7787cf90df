"""Branch speed24j: the editor server reuses, per unchanged top-level statement, the pairing of
libcst's statements with CPython's (``positions.statement_starts`` with a memo kept in
``SpanMemo``) and what the loop shadows found in a function (``analysis.loops.LoopMemo``, kept
by ``IncrementalParser``). An unchanged statement is the same object in both trees after an
edit (CPython's moved by whole lines), and the memos are used only for that same object, with
lines relative to the statement or function; these tests check that after edits of every kind
the server's diagnostics, starts and shadows equal a fresh computation's."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import libcst as cst
import pytest

from compilelint.config import load_config
from compilelint.lsp.analyzer import Analyzer
from compilelint.static.analysis.loops import LoopMemo, shadowed_breaks
from compilelint.static.engine import scan
from compilelint.static.incremental import IncrementalParser
from compilelint.static.positions import PairMemo, statement_starts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

BASE = """\
import torch
from torch import nn

LIMIT = 3


def helper(x):
    return x * 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        for i in range(LIMIT):
            v = h.sum().item()
            h = h + v
            print(h.max().item())
        return helper(h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        for _ in range(2):
            a = x.mean().item()
            x = x * a
            b = x.std().item()
        return self.block(x) + b


model = torch.compile(Model())
"""

# (what, old, new): applied one after the other from BASE
EDITS = [
    # insert: a line at the top of Block.forward (Model's statements move down one line)
    ("insert", "        h = self.lin(x)\n", "        h = self.lin(x)\n        h = h * 1\n"),
    # delete: the same line taken out again
    ("delete", "        h = h * 1\n", ""),
    # inside a function, in place: Block's loop gets a break before its first one
    ("inside", "            h = h + v\n", "            h = h + v.item()\n"),
    ("inside back", "            h = h + v.item()\n", "            h = h + v\n"),
    # inside a function, lines added: Model's loop gets a third break, a new first one
    (
        "inside, lines added",
        "        for _ in range(2):\n            a = x.mean().item()\n",
        "        for _ in range(2):\n            print(x)\n            a = x.mean().item()\n",
    ),
    # module level: a constant and an import before every class (all statements move)
    ("module level", "LIMIT = 3\n", "LIMIT = 3\nSCALE = 2.0\nimport math\n"),
    ("module level, in place", "LIMIT = 3\n", "LIMIT = 4\n"),
    # a summary other functions read: helper's result becomes a Python number
    ("summary", "    return x * 2\n", "    return (x * 2).sum().item()\n"),
    ("summary back", "    return (x * 2).sum().item()\n", "    return x * 2\n"),
    # a loop that every iteration reaches no longer: the first break goes under an `if`
    (
        "loop shape",
        "            v = h.sum().item()\n",
        "            if i:\n                v = h.sum().item()\n            else:\n                v = 0\n",
    ),
    # a function other functions call removed, then back
    ("remove function", "def helper(x):\n    return x * 2\n\n\n", ""),
    ("add function", "class Block(", "def helper(x):\n    return x * 2\n\n\nclass Block("),
]


def _fresh(real: str, text: str) -> list[object]:
    return list(
        scan([real], load_config([real]), no_cache=True, sources={real: text.encode()}).findings
    )


def test_server_edits_with_reuse_give_a_fresh_checks_diagnostics(tmp_path: Path) -> None:
    """Insert, delete, edits inside a function (in place and adding lines), at module level,
    of a summary another function reads, of a loop's shape, a called function removed and added back: after each, the
    server's findings (loop-shadow notes included) are a fresh scan's of the same text, and
    the memos were used for the statements the edit did not touch."""
    model = tmp_path / "model.py"
    model.write_text(BASE, encoding="utf-8")
    real = str(model.resolve())
    an = Analyzer()
    text = BASE
    first = an.check(real, text).findings
    assert first == _fresh(real, text)
    assert any("behind the break at line" in f.message for f in first)
    reused_frames = reused_pairs = 0
    for what, old, new in EDITS:
        assert old in text, what
        loops = an.parser.loop_memo(real)
        before_frames = dict(loops.frames)
        before_pairs = dict(an.parser.span_memo(real).pairs)
        text = text.replace(old, new, 1)
        got = an.check(real, text).findings
        assert got == _fresh(real, text), what
        after = an.parser.loop_memo(real).frames
        reused_frames += sum(1 for k, v in after.items() if before_frames.get(k) is v)
        pairs = an.parser.span_memo(real).pairs
        reused_pairs += sum(1 for k, v in pairs.items() if before_pairs.get(k) is v)
    assert reused_frames > 0  # a function's loop facts came from the memo
    assert reused_pairs > 20  # top-level statements' pairings came from the memo


def _edits(text: str, rng: random.Random, n: int) -> list[str]:
    """``n`` texts, each an edit of the one before: a line inserted, deleted or changed."""
    out = []
    lines = text.split("\n")
    for _ in range(n):
        k = rng.randrange(len(lines))
        kind = rng.randrange(3)
        indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
        if kind == 0:
            lines.insert(k, f"{indent}_probe = 1")
        elif kind == 1 and lines[k].strip().startswith("_probe"):
            del lines[k]
        else:
            lines.insert(k, "")
        out.append("\n".join(lines))
    return out


def _fixture_texts() -> list[tuple[str, str]]:
    out = []
    for p in sorted(FIXTURES.rglob("*.py")):
        text = p.read_text(encoding="utf-8", errors="replace")
        if "for " in text and "def " in text:
            out.append((p.name, text))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_starts_with_the_memo_equal_a_fresh_pairing(seed: int) -> None:
    """Over random edits of the fixtures, ``statement_starts`` with the memo of the previous
    version gives the same starts and CPython statements as without it."""
    rng = random.Random(seed)
    used = 0
    for name, text in _fixture_texts():
        parser = IncrementalParser()
        memo: PairMemo = {}
        for version in [text, *_edits(text, rng, 6)]:
            data = version.encode()
            try:
                tree = parser.python_tree(data, name)
                module = parser(data, name)
            except (SyntaxError, cst.ParserSyntaxError):
                continue
            before = dict(memo)
            asts: dict[int, list[ast.stmt]] = {}
            got = statement_starts(module, tree, asts, memo)
            fresh_asts: dict[int, list[ast.stmt]] = {}
            fresh = statement_starts(module, tree, fresh_asts)
            assert got == fresh, name
            assert asts.keys() == fresh_asts.keys(), name
            assert all(asts[k] == fresh_asts[k] for k in asts), name
            used += sum(1 for k, v in memo.items() if before.get(k) is v)
    assert used > 100


@pytest.mark.parametrize("seed", [1, 2])
def test_shadowed_breaks_with_the_memo_equal_a_fresh_search(seed: int) -> None:
    """Over random edits of the fixtures, with random sets of break lines, ``shadowed_breaks``
    with the memo of the previous version gives what it gives without."""
    rng = random.Random(seed)
    used = 0
    for name, text in _fixture_texts():
        parser = IncrementalParser()
        memo = LoopMemo()
        for version in [text, *_edits(text, rng, 6)]:
            data = version.encode()
            try:
                tree = parser.python_tree(data, name)
            except SyntaxError:
                continue
            n = version.count("\n") + 1
            # the lines of every call, and random others
            lines = {x.lineno for x in ast.walk(tree) if isinstance(x, ast.Call)}
            lines.update(rng.randrange(1, n + 1) for _ in range(10))
            before = dict(memo.frames)
            got = shadowed_breaks(version, lines, tree, memo)
            assert got == shadowed_breaks(version, lines, tree), name
            used += sum(1 for k, v in memo.frames.items() if before.get(k) is v)
    assert used > 10


def test_a_memo_entry_is_used_only_for_its_own_object() -> None:
    """An entry whose node is another object (an id reused by a new node) is not used: the
    statement is paired and searched again."""
    text = BASE
    tree = ast.parse(text)
    module = cst.parse_module(text)
    memo: PairMemo = {}
    statement_starts(module, tree, {}, memo)
    other = cst.parse_module(text.replace("LIMIT = 3", "LIMIT = 3\n\n\n"))
    other_tree = ast.parse(other.code)
    # the other module's statements under the first module's ids: no entry is used
    fake: PairMemo = {id(s): memo[id(t)] for s, t in zip(other.body, module.body)}
    assert statement_starts(other, other_tree, {}, fake) == statement_starts(other, other_tree)
    loops = LoopMemo()
    lines = [19, 21, 32, 34]
    shadowed_breaks(text, lines, tree, loops)
    shifted = ast.parse("\n\n" + text)
    fake_loops = LoopMemo()
    fake_loops.functions = {id(s): loops.functions[id(t)] for s, t in zip(shifted.body, tree.body)}
    moved = [ln + 2 for ln in lines]
    assert shadowed_breaks("\n\n" + text, moved, shifted, fake_loops) == shadowed_breaks(
        "\n\n" + text, moved, shifted
    )
    assert shadowed_breaks("\n\n" + text, moved, shifted) == {23: 21, 36: 34}


ODD_LAYOUT = [
    "def two(x):\n  y = x\n  return y\n",  # a block indented by two in a file of four
    "def tab(x):\n\ty = x\n\treturn y\n",  # by a tab
    "class Mixed:\n    def f(self):\n\treturn 1\n",  # a tab inside a four-space class
    "if True:\n        deep = 1\n",  # by eight
    "# a comment\n\ndef after_comment(x):\n    return x\n",
    "x = 1  # no newline at the end",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_one_statement_splice_is_the_full_parse(seed: int) -> None:
    """A splice of one statement keeps the text as the statement's code without generating
    it: over random edits of the fixtures (lines inserted inside and between statements,
    indented otherwise than the file, with tabs, at the end without a newline), the spliced
    module is the full parse of the text and its code is the text."""
    rng = random.Random(seed)
    taken = 0
    for name, text in _fixture_texts():
        parser = IncrementalParser()
        parser.parse(name, text.encode())
        lines = text.split("\n")
        for _ in range(6):
            new = list(lines)
            k = rng.randrange(len(new))
            if rng.random() < 0.5:
                indent = new[k][: len(new[k]) - len(new[k].lstrip())]
                new.insert(k, f"{indent}_probe = 1")
            else:
                new.insert(k, rng.choice(ODD_LAYOUT).rstrip("\n"))
            if rng.random() < 0.2:
                new.append(rng.choice(ODD_LAYOUT))
            data = "\n".join(new).encode()
            try:
                full = cst.parse_module(data)
            except cst.ParserSyntaxError:
                continue
            before = parser.stats.spliced
            got = parser.parse(name, data)
            taken += parser.stats.spliced - before
            assert got.code == full.code == data.decode(), name
            assert got.deep_equals(full), name
            kept = parser._last.get(name)
            if kept is not None:  # the chunks the next splice compares with
                assert [got.code_for_node(s) for s in got.body] == kept.chunks, name
            lines = new
    assert taken > 30


def test_a_resumed_walk_keeps_the_loaded_state_out_of_young_collections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a walk resumes from the memo, the loaded state is frozen (no young collection
    passes over it); when the check is done nothing is frozen any more, and an outside freeze
    (a process that forks workers) is left as it was, neither added to nor thawed."""
    import gc

    from compilelint.static.analysis import walker as W

    seen: list[int] = []
    walk_top = W.FileWalker.walk_top

    def recording(self: W.FileWalker, start: int, stop: int) -> None:
        seen.append(gc.get_freeze_count())
        walk_top(self, start, stop)

    monkeypatch.setattr(W.FileWalker, "walk_top", recording)
    model = tmp_path / "model.py"
    model.write_text(BASE, encoding="utf-8")
    real = str(model.resolve())
    an = Analyzer()
    text = BASE
    an.check(real, text)
    for _what, old, new in EDITS[:4]:
        text = text.replace(old, new, 1)
        seen.clear()
        assert an.check(real, text).findings == _fresh(real, text)
        assert gc.get_freeze_count() == 0
    assert an.parser.walk_memo(real).resumed > 0
    assert any(n > 0 for n in seen)  # the resumed walks ran with the loaded state frozen
    keep = [object() for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        text = text.replace(EDITS[0][1], EDITS[0][2], 1)
        assert an.check(real, text).findings == _fresh(real, text)
        # objects freed during the check leave the permanent generation; none are added,
        # and the outside freeze is not thawed
        assert frozen // 2 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
    del keep
