"""The editor server's walk resumed where an edit begins (``static.analysis.resume``): the
facts (candidates, call sites, positions) equal a fresh analysis of the same text, after random
edits and after edits of something another statement reads (a module constant, a helper's
return, a class attribute, an import, a decorator, a later class an earlier one looked at)."""

from __future__ import annotations

import random
from pathlib import Path

from compilelint.serialize import to_data
from compilelint.static.engine import FileInput, _checks_for, all_checks, analyze_source
from compilelint.static.incremental import IncrementalParser

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "fixtures").rglob("*.py"))
CHECKS = _checks_for(sorted(all_checks()))
INP = FileInput("f.py", "f.py", "f", False)


def _same_as_fresh(parser: IncrementalParser, text: str, where: str) -> None:
    data = text.encode("utf-8")
    got = to_data(analyze_source(data, INP, CHECKS, force=True, parse=parser))
    fresh = to_data(analyze_source(data, INP, CHECKS, force=True))
    assert got == fresh, where


def test_random_edits_moving_down_give_a_fresh_analysis() -> None:
    """Edits at random lines, each below or at the previous one (the walk then resumes), on
    every fixture with torch: facts (candidates, call sites, positions) equal a fresh walk."""
    rnd = random.Random(2424)
    resumed = 0
    for path in SOURCES:
        data = path.read_bytes()
        if b"torch" not in data:
            continue
        parser = IncrementalParser()
        lines = data.decode("utf-8").split("\n")
        _same_as_fresh(parser, "\n".join(lines), str(path))
        k = 0
        for _ in range(6):
            k = rnd.randrange(k, len(lines)) if rnd.random() < 0.8 else rnd.randrange(len(lines))
            new = list(lines)
            indent = len(new[k]) - len(new[k].lstrip()) if new[k].strip() else 0
            new.insert(
                k,
                " " * indent
                + rnd.choice(["x = x.sum().item()", "print(x)", "# c", "y = 1", "pass"]),
            )
            text = "\n".join(new)
            try:
                compile(text, "f.py", "exec")
            except SyntaxError:
                continue
            _same_as_fresh(parser, text, f"{path}: insert at line {k + 1}")
            lines = new
        resumed += parser.walk_memo(INP).resumed
    assert resumed > 30  # the walk really resumed


BASE = """import torch
from torch import nn

LIMIT = 4


def helper(x):
    return x.shape[0]


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0


class Net(Base):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if helper(h) > LIMIT:
            h = h * 2
        self.count += 1
        return h


class Other(nn.Module):
    def forward(self, x):
        if helper(x) > 2:
            return self.step(x)
        return x

    def step(self, x):
        return x + 1
"""

# each applied to the previous text: the later statements read what the edit changes
EDITS = [
    ("        return x + 1\n", "        print(x)\n        return x + 1\n"),  # the last class
    ("    return x.shape[0]\n", "    return x.sum()\n"),  # a helper's return kind
    ("        h = h * 2\n", "        h = h * 2\n        h.item()\n"),
    ("LIMIT = 4\n", "LIMIT = torch.ones(1)\n"),  # a module constant
    ("        self.count = 0\n", "        self.count = torch.zeros(1)\n"),  # a class attribute
    ("from torch import nn\n", "from torch import nn\nimport numpy as np\n"),  # an import
    ("    def step(self, x):\n", "    @torch.compiler.disable\n    def step(self, x):\n"),
    ("        h = h * 2\n        h.item()\n", "        h = h * 2\n"),
    ("    return x.sum()\n", "    return x.shape[0]\n"),
    ("LIMIT = torch.ones(1)\n", "LIMIT = 4\n"),
    ("import numpy as np\n", ""),
    ("    @torch.compiler.disable\n", ""),
]


def test_edits_of_what_other_statements_read_give_a_fresh_analysis() -> None:
    parser = IncrementalParser()
    text = BASE
    _same_as_fresh(parser, text, "base")
    for i, (old, new) in enumerate(EDITS):
        assert old in text, i
        text = text.replace(old, new, 1)
        _same_as_fresh(parser, text, f"edit {i}: {new!r}")
        # the same statement again (the memo kept at it), then a later one
        again = text.replace("        return x + 1\n", "        return x + 2\n", 1)
        _same_as_fresh(parser, again, f"edit {i}, then the last class")
        _same_as_fresh(parser, text, f"edit {i}, back")
    assert parser.walk_memo(INP).resumed > 10


def test_no_memo_where_the_state_cannot_be_compared_or_copied() -> None:
    """A ``visit_Module`` hook without ``module_signature`` (a pre-pass the memo cannot
    compare), or a ``ByIdentity`` entry written without ``put`` (a table it cannot copy):
    every walk is a full one, with the same facts."""
    import libcst as cst

    from compilelint.static.analysis.resume import ByIdentity
    from compilelint.static.checks.base import Check

    class ModuleReader(Check):
        CODE = "CL201"

        def visit_Module(self, node: cst.Module) -> None:
            self.count = len(node.body)

    class BadTable(Check):
        CODE = "CL201"

        def __init__(self, walker: object) -> None:
            super().__init__(walker)  # type: ignore[arg-type]
            self.table: ByIdentity[object, int] = ByIdentity()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.table[id(node)] = 1  # not through put()

    text = BASE
    for extra in (ModuleReader, BadTable):
        checks = [*CHECKS, extra]
        parser = IncrementalParser()
        for i, (old, new) in enumerate(EDITS[:4]):
            text = text.replace(old, new, 1)
            data = text.encode("utf-8")
            got = to_data(analyze_source(data, INP, checks, force=True, parse=parser))
            assert got == to_data(analyze_source(data, INP, checks, force=True)), i
        memo = parser.walk_memo(INP)
        assert memo.resumed == 0 and memo.full == 4 and memo.data is None, extra


LOOKAHEAD = """import torch
from torch import nn


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        out = self.inner(x)
        if out[1] > 2:
            return x
        return x + 1


class Middle(nn.Module):
    def forward(self, x):
        return x * 2


class Inner(nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x, n
"""


def test_an_edit_of_what_an_earlier_statement_looked_ahead_at() -> None:
    """``Outer``'s walk asks which top-level classes' ``forward`` returns a tuple, ``Inner``
    (defined later) among them: an edit of ``Inner`` changes the state before it."""
    parser = IncrementalParser()
    text = LOOKAHEAD
    _same_as_fresh(parser, text, "base")
    text = text.replace("        return x * 2\n", "        return x * 3\n")  # memo at Middle
    _same_as_fresh(parser, text, "middle")
    for old, new in (
        ("        return x, n\n", "        return (x, n)[0]\n"),
        ("        return (x, n)[0]\n", "        return x, n\n"),
    ):
        text = text.replace(old, new)
        _same_as_fresh(parser, text, new)


# Where the walk reads the module as a whole (so possibly statements after the one being
# walked): each is a pre-pass in the memo's key (``walker._walk_resuming``), or reads only the
# module's formatting (``code_of``). A new reader must be added to the key, then here.
MODULE_READERS = {
    ("analysis/walker.py", "FileWalker.__init__"),  # kept
    ("analysis/walker.py", "FileWalker.walk_module"),
    ("analysis/walker.py", "FileWalker.declare"),
    ("analysis/walker.py", "FileWalker.walk_top"),
    ("analysis/walker.py", "FileWalker.code_for"),  # code_of: formatting only
    ("analysis/walker.py", "_walk_resuming"),
    # splits the body into the edited statements and the tail (``analysis.tail``)
    ("analysis/walker.py", "_walk_region_and_tail"),
    ("analysis/evaluate.py", "Evaluator._tuple_forwards"),  # _forward_names: in the key
    ("checks/cl111_boolean_mask_indexing.py", "BooleanMaskIndexing.visit_FunctionDef"),  # code_of
}


def test_every_reader_of_the_whole_module_is_known() -> None:
    import ast

    src = ROOT / "src" / "compilelint" / "static"
    found: set[tuple[str, str]] = set()
    for path in sorted([*(src / "analysis").glob("*.py"), *(src / "checks").glob("*.py")]):
        rel = str(path.relative_to(src))
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(node: ast.AST, qual: str, rel: str = rel) -> None:
            for child in ast.iter_child_nodes(node):
                q = qual
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = f"{qual}.{child.name}" if qual else child.name
                if (
                    isinstance(child, ast.Attribute)
                    and child.attr == "module"
                    and isinstance(child.value, (ast.Name, ast.Attribute))
                    and ast.unparse(child.value) in ("self", "self.w", "w", "walker")
                ) or (
                    isinstance(child, ast.Call)
                    and ast.unparse(child.func) == "getattr"
                    and len(child.args) > 1
                    and ast.unparse(child.args[1]) == "'module'"
                ):
                    found.add((rel, qual))
                visit(child, q)

        visit(tree, "")
    assert found == MODULE_READERS
