"""static/incremental.py: a spliced parse is exactly the full parse of the new text, and the
engine gives the same findings with it."""

from __future__ import annotations

import random
from pathlib import Path

import libcst as cst

from compilelint.config import Config
from compilelint.static.engine import scan
from compilelint.static.incremental import IncrementalParser

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "fixtures").rglob("*.py"))
SNIPPETS = [
    "        x = x.sum().item()",
    "",
    "# a comment",
    "def helper(x):",
    "    return x",
    "class Extra:",
    "    pass",
    "        if x.sum() > 0:",
    "@decorator",
    '"""',
    "    # indented comment",
    "x = (",
]


def test_random_edits_parse_as_a_full_parse() -> None:
    rnd = random.Random(15)
    spliced = 0
    for path in SOURCES:
        data = path.read_bytes()
        try:
            cst.parse_module(data)
        except cst.ParserSyntaxError:
            continue
        parser = IncrementalParser()
        parser.parse("f", data)
        lines = data.decode("utf-8").split("\n")
        for _ in range(6):
            new = list(lines)
            k = rnd.randrange(len(new))
            op = rnd.choice(["insert", "delete", "append"]) if len(new) > 2 else "insert"
            if op == "insert":
                new.insert(k, rnd.choice(SNIPPETS))
            elif op == "delete":
                del new[k]
            else:
                new[k] += rnd.choice([" ", "  # noqa", "x", "("])
            text = "\n".join(new).encode("utf-8")
            try:
                full = cst.parse_module(text)
            except cst.ParserSyntaxError:
                try:
                    parser.parse("f", text)
                except cst.ParserSyntaxError:
                    parser.parse("f", "\n".join(lines).encode("utf-8"))
                    continue
                raise AssertionError(
                    f"{path}: the incremental parse accepted invalid code"
                ) from None
            before = parser.stats.spliced
            got = parser.parse("f", text)
            spliced += parser.stats.spliced - before
            assert got.code == full.code
            assert got.deep_equals(full), f"{path}: {op} at line {k + 1}"
            lines = new
    assert spliced > 25  # the splice path is really taken, not only the fallback


PY_SNIPPETS = [
    *SNIPPETS,
    "x = 1 \\",
    "y = 1; z = (",
    ")",
    "    y = 2",
    "from __future__ import annotations",
    "a = 1; b = 2",
    "def g(): return 1",
    "'''",
]


def _py_key(tree: object) -> str:
    import ast

    return ast.dump(tree, include_attributes=True)  # type: ignore[arg-type]


def test_random_edits_give_cpythons_tree_of_the_whole_text() -> None:
    """``IncrementalParser.python_tree`` after random edits (lines inserted, deleted, changed
    in place: the same number of lines keeps the statements after the edit too) equals
    ``ast.parse`` of the whole text, line and column numbers included, and raises where it
    raises."""
    import ast

    rnd = random.Random(24)
    spliced = 0
    parsers: list[IncrementalParser] = []
    for path in SOURCES:
        data = path.read_bytes()
        try:
            ast.parse(data)
        except SyntaxError:
            continue
        parser = IncrementalParser()
        parsers.append(parser)
        parser.python_tree(data, "f")
        lines = data.decode("utf-8").split("\n")
        for _ in range(8):
            new = list(lines)
            k = rnd.randrange(len(new))
            op = rnd.choice(["insert", "delete", "change", "change"]) if len(new) > 2 else "insert"
            if op == "insert":
                new.insert(k, rnd.choice(PY_SNIPPETS))
            elif op == "delete":
                del new[k]
            elif rnd.random() < 0.5:
                new[k] += rnd.choice([" ", "  # noqa", "x", "(", "\\"])
            else:
                new[k] = rnd.choice(PY_SNIPPETS)
            text = "\n".join(new).encode("utf-8")
            try:
                full = ast.parse(text)
            except SyntaxError as exc:
                try:
                    parser.python_tree(text, "f")
                except SyntaxError as mine:
                    assert (mine.msg, mine.lineno) == (exc.msg, exc.lineno)
                    parser.python_tree("\n".join(lines).encode("utf-8"), "f")
                    continue
                raise AssertionError(f"{path}: the splice accepted invalid code") from None
            before = parser.py_stats.spliced
            got = parser.python_tree(text, "f")
            spliced += parser.py_stats.spliced - before
            assert _py_key(got) == _py_key(full), f"{path}: {op} at line {k + 1}"
            lines = new
    kept = sum(p.py_stats.kept_after for p in parsers)
    assert spliced > 40 and kept > 10, (spliced, kept)  # the splice paths are really taken


def test_scan_with_the_incremental_parser_finds_the_same(tmp_path: Path) -> None:
    src = (ROOT / "fixtures" / "demo" / "transformer.py").read_text(encoding="utf-8")
    model = tmp_path / "model.py"
    model.write_text(src, encoding="utf-8")
    parser = IncrementalParser()
    cfg = Config(cache=False)
    first = scan([str(model)], cfg, parse=parser, want_project=True)
    edited = src.replace(
        "        return x + h / max(peak, 1.0)",
        "        print(x)\n        return x + h / max(peak, 1.0)",
    )
    assert edited != src
    real = str(model.resolve())
    with_parser = scan([str(model)], cfg, sources={real: edited.encode()}, parse=parser)
    plain = scan([str(model)], cfg, sources={real: edited.encode()})
    assert parser.stats.spliced == 1
    assert with_parser.findings == plain.findings
    assert {f.rule for f in with_parser.findings} - {f.rule for f in first.findings} == {"CL201"}


def test_remembered_spans_are_the_spans_of_a_full_analysis() -> None:
    """The parser's span memo (``positions.SpanMemo``) moves the spans of unchanged statements
    with them: after random edits every candidate, call site and guard position equals a
    fresh analysis of the same text without the memo."""
    from compilelint.serialize import to_data
    from compilelint.static.engine import FileInput, _checks_for, analyze_source
    from compilelint.static.positions import SpanMemo

    checks = _checks_for(["CL101", "CL103", "CL201", "CL202", "CL301", "CL302", "CL205"])
    rnd = random.Random(24)
    reused = 0
    for path in SOURCES:
        data = path.read_bytes()
        if b"torch" not in data:
            continue
        parser = IncrementalParser()
        inp = FileInput("f.py", "f.py", "f", False)
        lines = data.decode("utf-8").split("\n")
        for _ in range(5):
            new = list(lines)
            k = rnd.randrange(len(new))
            new.insert(k, rnd.choice(["", "# a comment", "        x = x.sum().item()"]))
            text = "\n".join(new).encode("utf-8")
            memo = parser.span_memo(inp)
            before = {id(v[0]) for v in memo.entries.values()}
            got = to_data(analyze_source(text, inp, checks, force=True, parse=parser))
            reused += len(before & {id(v[0]) for v in memo.entries.values()})
            fresh = to_data(analyze_source(text, inp, checks, force=True))
            assert got == fresh, f"{path}: insert at line {k + 1}"
            lines = new
        assert isinstance(parser.span_memo(inp), SpanMemo)
    assert reused > 20  # remembered statements were really used


EDIT_BASE = """import torch
from torch import nn


def helper(x):
    return x.shape[0]


def scale(x):
    return x * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if helper(h) > 2:
            h = scale(h)
        return h
"""

# (old, new, rules the file's findings hold after the edit): applied one after the other
SERVER_EDITS = [
    # an edit inside a function
    ("        return h\n", "        print(h)\n        return h\n", {"CL201"}),
    # a summary used elsewhere: helper now returns a tensor, forward's branch depends on it
    ("    return x.shape[0]\n", "    return x.sum()\n", {"CL101", "CL201"}),
    # a function added, and a call of it from forward
    (
        "class Net",
        "def extra(x):\n    return x.max().item()\n\n\nclass Net",
        {"CL101", "CL201"},
    ),
    (
        "            h = scale(h)\n",
        "            h = scale(h) + extra(h)\n",
        {"CL101", "CL103", "CL201"},
    ),
    # the summary back: the branch no longer depends on a tensor
    ("    return x.sum()\n", "    return x.shape[0]\n", {"CL103", "CL201"}),
    # a function removed (and its call)
    ("def extra(x):\n    return x.max().item()\n\n\n", "", {"CL201"}),
    ("            h = scale(h) + extra(h)\n", "            h = scale(h)\n", {"CL201"}),
    # the edit inside forward undone
    ("        print(h)\n", "", set()),
]


def test_server_edits_give_the_cli_findings(tmp_path: Path) -> None:
    """The editor server's analyser (in-memory caches, the incremental parser, settings kept
    across checks) gives, after each edit, the findings a fresh scan of the same text gives:
    edits inside a function, edits that change a summary another function uses, functions
    added and removed."""
    from compilelint.config import load_config
    from compilelint.lsp.analyzer import Analyzer

    model = tmp_path / "model.py"
    model.write_text(EDIT_BASE, encoding="utf-8")
    real = str(model.resolve())
    analyzer = Analyzer()
    text = EDIT_BASE
    assert analyzer.check(real, text).findings == []
    for old, new, rules in SERVER_EDITS:
        assert old in text
        text = text.replace(old, new, 1)
        got = analyzer.check(real, text).findings
        cli = scan(
            [real], load_config([real]), no_cache=True, sources={real: text.encode("utf-8")}
        ).findings
        assert got == cli, f"after {new!r}"
        assert {f.rule for f in got} == rules, f"after {new!r}"
    assert analyzer.parser.stats.spliced > 0  # the edits really took the incremental path


# edits of other kinds, one after the other from EDIT_BASE: (old, new). Several keep the
# number of lines (then CPython's statements after the edit are kept as well as those before)
SERVER_EDITS_MORE = [
    # a body edited in place (the same lines): scale's result becomes a Python number
    ("    return x * 2\n", "    return x.item()\n"),
    # a signature: forward takes an int that picks the branch
    ("    def forward(self, x):\n", "    def forward(self, x, n: int = 2):\n"),
    ("        if helper(h) > 2:\n", "        if helper(h) > n:\n"),
    # a class attribute: a counter kept on the module and changed in forward
    (
        "        self.lin = nn.Linear(4, 4)\n",
        "        self.lin = nn.Linear(4, 4)\n        self.count = 0\n",
    ),
    ("        return h\n", "        self.count += 1\n        return h\n"),
    # an import, and a use of it in forward
    ("from torch import nn\n", "from torch import nn\nimport numpy as np\n"),
    ("        h = self.lin(x)\n", "        h = self.lin(x)\n        a = np.asarray(h)\n"),
    # the import changed in place: `np` is no longer numpy
    ("import numpy as np\n", "import pickle as np\n"),
    # a call-graph edge: forward stops calling scale, then calls helper twice
    ("            h = scale(h)\n", "            h = h + 1\n"),
    ("            h = h + 1\n", "            h = helper(h)\n"),
    # scale back to its tensor result, in place
    ("    return x.item()\n", "    return x * 2\n"),
    # a syntax error in the middle of the file, then fixed
    ("    return x.shape[0]\n", "    return x.shape[0\n"),
    ("    return x.shape[0\n", "    return x.shape[0]\n"),
]


def test_more_server_edits_give_a_fresh_analysis(tmp_path: Path) -> None:
    """As above, for edits of a signature, a class attribute, an import, a call-graph edge,
    in-place edits of a line and a syntax error: after each, the server's findings equal a
    fresh scan's of the same text, and its CPython tree and libcst module equal fresh parses."""
    import ast

    from compilelint.config import load_config
    from compilelint.lsp.analyzer import Analyzer

    model = tmp_path / "model.py"
    model.write_text(EDIT_BASE, encoding="utf-8")
    real = str(model.resolve())
    analyzer = Analyzer()
    text = EDIT_BASE
    analyzer.check(real, text)
    seen: set[str] = set()
    for old, new in SERVER_EDITS_MORE:
        assert old in text
        text = text.replace(old, new, 1)
        got = analyzer.check(real, text).findings
        cli = scan(
            [real], load_config([real]), no_cache=True, sources={real: text.encode("utf-8")}
        ).findings
        assert got == cli, f"after {new!r}"
        seen.update(f.rule for f in got)
        data = text.encode("utf-8")
        try:
            want = ast.dump(ast.parse(data), include_attributes=True)
        except SyntaxError:
            continue
        assert ast.dump(analyzer.parser.python_tree(data, real), include_attributes=True) == want
        assert analyzer.parser.parse(real, data).deep_equals(cst.parse_module(data))
    assert analyzer.parser.py_stats.spliced > 5 and analyzer.parser.py_stats.kept_after > 2
    assert {"CL000", "CL103", "CL501"} <= seen, seen  # the edits changed the findings
