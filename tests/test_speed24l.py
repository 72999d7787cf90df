"""Branch speed24l: the editor server's edit of a file whose last line has no newline is
spliced (``incremental._as_parsed``: the text libcst parses, with the newline it appends, and
``has_trailing_newline`` False in the spliced module) instead of parsed whole with its memos
forgotten; the walker keeps ``func`` and ``cls`` as attributes where ``scope`` and
``class_stack`` change. These tests check that the server's diagnostics after edits of each kind
(inside a method of a large class, a method's signature that other methods read, a class
attribute, module level), with and without a newline at the end, equal a fresh scan's, that
the splices equal the full parse, and that ``func``/``cls`` are what the properties gave."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from compilelint.config import load_config
from compilelint.lsp.analyzer import Analyzer
from compilelint.static.analysis import walker as W
from compilelint.static.engine import scan
from compilelint.static.incremental import IncrementalParser, _as_parsed, _footer, _header

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# a large class: many methods, one of which (``scale``) the others call and whose signature
# and result change below; a class attribute read by ``forward``; module-level constants
BASE = """\
import torch
from torch import nn

LIMIT = 3


class Big(nn.Module):
    factor = 2

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def scale(self, x):
        return x * 2

    def first(self, x):
        return self.scale(x) + 1

    def second(self, x):
        h = self.lin(x)
        for i in range(LIMIT):
            h = h + self.scale(h)
        return h

    def third(self, x):
        return self.norm(x)

    def forward(self, x):
        h = self.first(x)
        h = self.second(h)
        n = self.factor
        print(n)
        return self.third(h) * n


class Top(nn.Module):
    def __init__(self):
        super().__init__()
        self.big = Big()

    def forward(self, x):
        y = self.big(x)
        return y.sum().item()


model = torch.compile(Top())
"""

# (what, old, new): applied one after the other from BASE
EDITS = [
    # inside a method of the large class
    (
        "inside a method",
        "        h = self.lin(x)\n",
        "        h = self.lin(x)\n        v = h.max().item()\n",
    ),
    ("inside a method back", "        v = h.max().item()\n", ""),
    # a method's signature and result that the other methods read
    (
        "signature",
        "    def scale(self, x):\n        return x * 2\n",
        "    def scale(self, x, k=3):\n        return (x * k).sum().item()\n",
    ),
    (
        "signature back",
        "    def scale(self, x, k=3):\n        return (x * k).sum().item()\n",
        "    def scale(self, x):\n        return x * 2\n",
    ),
    # a class attribute forward reads
    ("class attribute", "    factor = 2\n", "    factor = torch.ones(1)\n"),
    ("class attribute back", "    factor = torch.ones(1)\n", "    factor = 2\n"),
    # module level: a constant the loop reads, in place and with a statement added
    ("module level", "LIMIT = 3\n", "LIMIT = 4\n"),
    ("module level, added", "LIMIT = 4\n", "LIMIT = 4\nSCALE = 2.0\n"),
    # the last statement (the one a missing final newline belongs to)
    (
        "last statement",
        "model = torch.compile(Top())",
        "model = torch.compile(Top(), dynamic=True)",
    ),
]


def _fresh(real: str, text: str) -> list[object]:
    return list(
        scan([real], load_config([real]), no_cache=True, sources={real: text.encode()}).findings
    )


@pytest.mark.parametrize("final_newline", [True, False])
def test_server_edits_give_a_fresh_checks_diagnostics(tmp_path: Path, final_newline: bool) -> None:
    """After each edit (inside a method of a large class, a method's signature and result
    that others read, a class attribute, module level, the last statement), the server's
    findings are a fresh scan's of the same text, with and without a newline at the end of
    the file; without one, the edits are spliced and the walk resumes as with one."""
    base = BASE if final_newline else BASE.rstrip("\n")
    model = tmp_path / "model.py"
    model.write_text(base, encoding="utf-8")
    real = str(model.resolve())
    an = Analyzer()
    text = base
    assert an.check(real, text).findings == _fresh(real, text)
    full_before = an.parser.stats.full
    for what, old, new in EDITS:
        assert old in text, what
        text = text.replace(old, new, 1)
        assert text.endswith("\n") is final_newline
        got = an.check(real, text).findings
        assert got == _fresh(real, text), what
    assert an.parser.stats.full == full_before  # every edit spliced
    memo = an.parser.walk_memo(real)
    assert memo.resumed >= len(EDITS) - 3  # the walk resumed (not from the start)


def test_server_diagnostics_with_and_without_a_final_newline_agree(tmp_path: Path) -> None:
    """The same edits of the text with and without a newline at its end give the same
    findings (the newline is not code)."""
    an = Analyzer()
    texts = {}
    for nl in (True, False):
        p = tmp_path / f"m{int(nl)}.py"
        base = BASE if nl else BASE.rstrip("\n")
        p.write_text(base, encoding="utf-8")
        real = str(p.resolve())
        text, got = base, []
        for _what, old, new in EDITS:
            text = text.replace(old, new, 1)
            got.append([(f.rule, f.line, f.col, f.message) for f in an.check(real, text).findings])
        texts[nl] = got
    assert texts[True] == texts[False]


def _fixture_texts() -> list[tuple[str, str]]:
    out = []
    for p in sorted(FIXTURES.rglob("*.py")):
        text = p.read_text(encoding="utf-8", errors="replace").rstrip("\n")
        if "def " in text and "class " in text:
            out.append((p.name, text))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_splice_without_a_final_newline_is_the_full_parse(seed: int) -> None:
    """Over random edits of the fixtures with the newline at the end taken away (lines
    inserted, deleted, changed, added at the end, indented comments and blank lines last),
    the spliced module is libcst's full parse of the text (``deep_equals``, and
    ``has_trailing_newline`` False), most edits are spliced, and the header's and footer's
    code the parser keeps for the next splice are the module's."""
    rng = random.Random(seed)
    spliced = tried = 0
    for name, text in _fixture_texts()[:40]:
        parser = IncrementalParser()
        parser.parse(name, text.encode())
        for _ in range(6):
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
            op = rng.randrange(5)
            if op == 0:
                lines.insert(k, f"{indent}_probe = 1")
            elif op == 1 and len(lines) > 1:
                del lines[k]
            elif op == 2:
                lines[k] += "  # edited"
            else:
                lines.append(rng.choice(["# tail", "q = 2", "    # indented", "", "x = (\n  1)"]))
            new = "\n".join(lines)
            try:
                full = cst.parse_module(new)
            except cst.ParserSyntaxError:
                continue
            tried += 1
            before = parser.stats.spliced
            got = parser.parse(name, new.encode())
            spliced += parser.stats.spliced - before
            assert got.deep_equals(full), name
            assert got.has_trailing_newline == full.has_trailing_newline, name
            if full.code == new:  # libcst gives its input back (its rule; not always so)
                assert got.code == new, name
            kept = parser._last.get(name)
            if kept is not None:  # the header's and footer's code kept with the module's
                assert (kept.head, kept.foot) == (_header(got), _footer(got)), name
            text = new
    assert tried > 100
    assert spliced > tried // 2


@pytest.mark.parametrize(
    "text",
    [
        "x = 1",
        "x = 1\n",
        "x = 1\r\ny = 2",
        "x = 1\r\ny = 2\r\n",
        "class A:\n    def f(self):\n        return 1",
        "if x:\n    pass\n# tail",
        "x = (1,\n     2)",
        "x = 1  # c",
    ],
)
def test_as_parsed_is_the_text_libcst_parses(text: str) -> None:
    """``_as_parsed``: the text itself when libcst finds its last line ended, else the text
    and its first newline (a line feed when it has none); parsing that text gives the same
    module as parsing the file's text, less ``has_trailing_newline``."""
    parsed = _as_parsed(text)
    assert parsed is not None
    full = cst.parse_module(text)
    assert (parsed is text) == full.has_trailing_newline
    again = cst.parse_module(parsed)
    assert again.has_trailing_newline
    assert again.with_changes(has_trailing_newline=full.has_trailing_newline).deep_equals(full)


def test_as_parsed_leaves_odd_texts_to_the_full_parse() -> None:
    """An empty text, and one without a newline at its end that ends in a backslash or has a
    lone carriage return, are parsed whole, not spliced."""
    assert _as_parsed("") is None
    assert _as_parsed("x = 1 \\") is None
    assert _as_parsed("x = 1\ry = 2") is None  # a lone carriage return: libcst's own rule
    assert _as_parsed("x = 1\r") is None
    parser = IncrementalParser()
    module = parser.parse("a", b"x = 1\ry = 2")
    assert module.deep_equals(cst.parse_module(b"x = 1\ry = 2"))
    assert "a" not in parser._last  # parsed whole, nothing kept


def test_func_and_cls_are_the_scope_and_class_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """``FileWalker.func`` and ``cls`` are attributes now: at every hook the walk fires (and
    every expression it visits), over the fixtures, they are ``scope.facts`` and the top of
    ``class_stack``, as the properties were."""
    seen = [0]

    def check(w: Any) -> None:
        assert w.func is w.scope.facts
        assert w.cls is (w.class_stack[-1] if w.class_stack else None)
        seen[0] += 1

    fire, visit_expr = W.FileWalker.fire, W.FileWalker.visit_expr

    def fire_checked(self: Any, node: cst.CSTNode) -> None:
        check(self)
        fire(self, node)

    def expr_checked(self: Any, node: cst.CSTNode) -> None:
        check(self)
        visit_expr(self, node)

    monkeypatch.setattr(W.FileWalker, "fire", fire_checked)
    monkeypatch.setattr(W.FileWalker, "visit_expr", expr_checked)
    paths = [p for p in sorted(FIXTURES.rglob("*.py")) if "class " in p.read_text(errors="replace")]
    for p in paths[:30]:
        real = str(p.resolve())
        scan([real], load_config([real]), no_cache=True)
    assert seen[0] > 2_000


def test_func_and_cls_after_a_resumed_walk(tmp_path: Path) -> None:
    """A walk resumed from the memo (a pickled walker) carries ``func`` and ``cls`` with the
    rest of its state: the module level's (None), and the walk goes on with them in step."""
    model = tmp_path / "model.py"
    model.write_text(BASE, encoding="utf-8")
    real = str(model.resolve())
    an = Analyzer()
    an.check(real, BASE)
    text = BASE.replace("    def third(self, x):\n", "    def third(self, x):\n        x = x + 1\n")
    an.check(real, text)
    memo = an.parser.walk_memo(real)
    assert memo.data is not None
    walker, _uses = memo.load(an.parser._last[real].module)
    W.thaw()
    assert walker.func is None and walker.cls is None
    assert walker.scope is walker.module_scope and not walker.class_stack


def test_forward_classes_with_the_memo_equal_a_fresh_search() -> None:
    """``_forward_classes`` with the memo kept between versions (the walk memo's ``forward``)
    gives the answer of a fresh search after each edit (a forward's return made a tuple and
    back, a class renamed, a class added), and keeps an answer only for its own statement."""
    from compilelint.static.analysis.evaluate import _forward_classes

    text = BASE
    steps = [
        ("        return self.third(h) * n\n", "        return self.third(h) * n, 1\n"),
        ("        return self.third(h) * n, 1\n", "        return self.third(h) * n\n"),
        ("        return y.sum().item()\n", "        return y, y.sum().item()\n"),
        ("class Top(", "class Upper("),
        (
            "model = ",
            "class Extra(nn.Module):\n    def forward(self, x):\n        return x, 1\n\n\nmodel = ",
        ),
    ]
    parser = IncrementalParser()
    memo: dict[int, tuple[cst.ClassDef, bool]] = {}
    module = parser.parse("m", text.encode())
    assert _forward_classes(module, memo) == _forward_classes(module) == frozenset()
    answers = []
    for old, new in steps:
        text = text.replace(old, new, 1)
        before = {k: v for k, v in memo.items()}
        module = parser.parse("m", text.encode())
        got = _forward_classes(module, memo)
        assert got == _forward_classes(module)
        answers.append(got)
        assert set(memo) == {id(s) for s in module.body if isinstance(s, cst.ClassDef)}
        assert all(memo[k][0] is v[0] for k, v in before.items() if k in memo)
    assert answers[0] == {"Big"} and answers[1] == frozenset()
    assert answers[2] == {"Top"} and answers[3] == {"Upper"} and answers[4] == {"Upper", "Extra"}
