"""Branch speed24n: the editor server does not walk the statements after an edit when what the
edited statements leave for them (their *exports*) equals what the previous walk's left there
(``static/analysis/tail.py``): it takes their effect on the walk's outputs from the previous walk.

These tests check that after edits of each kind (inside a method, changing nothing exported; a
helper's returned value made a list that a later class reads; a signature; a class attribute;
module level; a new statement) the server's diagnostics equal a fresh scan's, with the tail
taken where the exports are equal and walked where they are not; that every export table
changes the comparison when it changes, and the private entries of the edited functions do not;
that a comparison ignoring an export gives wrong diagnostics (the mutation check); and that the
layout the comparison leaves out of the edited statements' nodes is layout only."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from compilelint.config import load_config
from compilelint.lsp.analyzer import Analyzer
from compilelint.model import Finding
from compilelint.serialize import to_data
from compilelint.static.analysis import tail as T
from compilelint.static.analysis import walker as W
from compilelint.static.analysis.guards import GuardUses
from compilelint.static.analysis.resume import ByIdentity, WalkMemo
from compilelint.static.checks.base import ScopedNames, build_hooks
from compilelint.static.engine import (
    FileInput,
    _checks_for,
    all_checks,
    analyze_source,
    scan,
)
from compilelint.static.incremental import IncrementalParser

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SRC = Path(W.__file__).resolve().parent.parent  # src/compilelint/static

# a helper whose result a later class reads, a large class, a class after it that calls both,
# module-level statements after them
BASE = """\
import torch
from torch import nn
import numpy as np

LIMIT = 3


def helper(x):
    return x.sum()


class Big(nn.Module):
    factor = 2

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.limit = 3

    def scale(self, x):
        return x * 2

    def second(self, x):
        h = self.lin(x)
        for i in range(LIMIT):
            h = h + self.scale(h)
        return h

    def forward(self, x):
        h = self.second(x)
        n = self.factor
        return h * n


class Top(nn.Module):
    def __init__(self):
        super().__init__()
        self.big = Big()

    def forward(self, x):
        y = self.big(x)
        s = helper(y)
        if s > 0:
            y = y + 1
        if self.big.limit > 0:
            y = y * 2
        print(self.big.factor)
        return y


class Last(nn.Module):
    def forward(self, x):
        return x + np.random.randn()


model = torch.compile(Top())
"""

# (what, old, new, whether the tail after the edited statement is taken from the last walk)
EDITS: list[tuple[str, str, str, bool | None]] = [
    # the first edit walks its tail (no record yet) and leaves one
    (
        "inside a method",
        "        h = self.lin(x)\n",
        "        h = self.lin(x)\n        v = 1\n",
        None,
    ),
    ("inside a method back", "        v = 1\n", "", True),
    (
        "inside a method, a break",
        "        n = self.factor\n",
        "        n = self.factor\n        k = h.max().item()\n",
        True,
    ),
    ("inside a method, a break back", "        k = h.max().item()\n", "", True),
    # the helper's result becomes a list: ``if s > 0`` in Top.forward no longer a tensor branch
    ("returned value", "    return x.sum()\n", "    return x.sum().tolist()\n", False),
    ("returned value back", "    return x.sum().tolist()\n", "    return x.sum()\n", False),
    # an edit further down in the same statement, then in a later one (the edit moved down)
    (
        "inside a method again",
        "        h = self.lin(x)\n",
        "        h = self.lin(x)\n        v = 2\n",
        None,
    ),
    (
        "inside a later class",
        "        y = self.big(x)\n",
        "        y = self.big(x)\n        w = 3\n",
        True,
    ),
    ("inside a later class back", "        w = 3\n", "", True),
    ("inside a method again back", "        v = 2\n", "", None),
    # a signature the class's other methods read
    ("signature", "    def scale(self, x):\n", "    def scale(self, x, k=3):\n", False),
    ("signature back", "    def scale(self, x, k=3):\n", "    def scale(self, x):\n", False),
    # a class attribute (later statements do not read it: the tail is taken, and right)
    ("class attribute", "    factor = 2\n", "    factor = torch.ones(1)\n", None),
    ("class attribute back", "    factor = torch.ones(1)\n", "    factor = 2\n", None),
    # an instance attribute a later class reads (``if self.big.limit > 0``)
    (
        "instance attribute",
        "        self.limit = 3\n",
        "        self.limit = torch.ones(1)\n",
        False,
    ),
    (
        "instance attribute back",
        "        self.limit = torch.ones(1)\n",
        "        self.limit = 3\n",
        False,
    ),
    # module level: a constant, and a statement added
    ("module level", "LIMIT = 3\n", "LIMIT = 4\n", False),
    ("module level, added", "LIMIT = 4\n", "LIMIT = 4\nSCALE = torch.ones(2)\n", False),
    # an import a later class reads through (``np.random.randn``: CL107 with numpy only)
    ("an import", "import numpy as np\n", "import math as np\n", None),
    ("an import back", "import math as np\n", "import numpy as np\n", False),
]


def _fresh(real: str, text: str) -> list[Finding]:
    return list(
        scan([real], load_config([real]), no_cache=True, sources={real: text.encode()}).findings
    )


def _memo(an: Analyzer, real: str) -> WalkMemo:
    return an.parser.walk_memo(real)


def _run(tmp_path: Path) -> tuple[list[str], list[tuple[str, bool]]]:
    """The edits through the server: the ones whose findings differ from a fresh scan's, and
    for each edit whether its tail was taken from the last walk."""
    model = tmp_path / "model.py"
    model.write_text(BASE, encoding="utf-8")
    real = str(model.resolve())
    an = Analyzer()
    text = BASE
    wrong: list[str] = []
    taken: list[tuple[str, bool]] = []
    if an.check(real, text).findings != _fresh(real, text):
        wrong.append("open")
    for what, old, new, _want in EDITS:
        assert old in text, what
        text = text.replace(old, new, 1)
        before = _memo(an, real).tails
        got = an.check(real, text).findings
        taken.append((what, _memo(an, real).tails > before))
        if got != _fresh(real, text):
            wrong.append(what)
    return wrong, taken


def test_server_edits_take_the_tail_only_where_the_exports_are_equal(tmp_path: Path) -> None:
    """After each edit the server's findings are a fresh scan's; the tail after the edited
    statement is taken from the last walk after the edits that change nothing a later
    statement reads (inside a method's body, also at a later place than the last edit), and
    walked after those that do (a returned value another class reads, a signature, a class
    attribute, a module constant, a new statement)."""
    wrong, taken = _run(tmp_path)
    assert wrong == []
    for (what, got), (_w, _o, _n, want) in zip(taken, EDITS, strict=True):
        if want is not None:
            assert got is want, what


def test_the_edits_change_what_a_fresh_scan_finds(tmp_path: Path) -> None:
    """The returned value's edit changes the findings of the class after it (CL304 in
    ``Top.forward``), so the test above can tell a wrong skip of that class. (An instance or
    class attribute that another class reads is resolved from the facts after the walk, by the
    project view: what the walk of that class reads of it is the same.)"""
    model = tmp_path / "model.py"
    model.write_text(BASE, encoding="utf-8")
    real = str(model.resolve())

    def rules(text: str) -> list[tuple[str, int]]:
        return sorted((f.rule, f.line) for f in _fresh(real, text))

    base = rules(BASE)
    for what, old, new in (
        ("returned value", "    return x.sum()\n", "    return x.sum().tolist()\n"),
        ("an import", "import numpy as np\n", "import math as np\n"),
    ):
        assert rules(BASE.replace(old, new, 1)) != base, what


@contextmanager
def _ignoring(keys: frozenset[tuple[str, str]] | None) -> Iterator[None]:
    """The comparison with exports left out (the mutation check; None: all of them): the
    digests after the edited statements, and the recorded facts from before the tail."""
    digest, differs = T.digest, T.differs

    def without(*args: Any, **kwargs: Any) -> dict[tuple[str, str], bytes]:
        got = digest(*args, **kwargs)
        return {k: v for k, v in got.items() if keys is not None and k not in keys}

    def ignoring(key: tuple[str, str], recorded: Any, current: Any) -> bool:
        return keys is not None and key not in keys and differs(key, recorded, current)

    T.digest = without  # type: ignore[assignment]
    T.differs = ignoring  # type: ignore[assignment]
    try:
        yield
    finally:
        T.digest, T.differs = digest, differs  # type: ignore[assignment]


# what an import exports: the walker's imports (the checks keep the names the module binds
# to functions a decorator or call disables, as they qualify them; their pending lists hold
# the module's nodes, written by identity, so two separate parses differ there too)
IMPORT = frozenset(
    {
        ("walker", "imports"),
        ("CompilerDisabledCall", "_pending_fn"),
        ("CompilerDisabledCall", "_pending_wrap"),
    }
)


@pytest.mark.parametrize("keys", [IMPORT, None], ids=["the imports", "everything"])
def test_a_comparison_that_ignores_an_export_gives_wrong_diagnostics(
    tmp_path: Path, keys: frozenset[tuple[str, str]] | None
) -> None:
    """The mutation check: with the imports left out of the comparison (or every export), the
    edit that makes ``np`` numpy again takes the tail from the last walk (made with ``np``
    math), and ``Last.forward``'s diagnostics are wrong (CL107 missing)."""
    with _ignoring(keys):
        wrong, taken = _run(tmp_path)
    assert ("an import back", True) in taken
    assert "an import back" in wrong


def test_an_import_changes_only_the_imports() -> None:
    """After the import (statement 2), the edit that binds ``np`` to math changes exactly the
    ``IMPORT`` tables: the mutation check leaves out one export, what an import leaves."""
    # both states held at once: the two parses' nodes are distinct objects (a node outside the
    # region is written by its identity), never one freed and its id reused by the other
    # (which made the CI run see `_pending_wrap` equal)
    first = _state_after(BASE, 3)
    second = _state_after(BASE.replace("import numpy as np\n", "import math as np\n"), 3)
    before, after = T.digest(*first), T.digest(*second)
    assert {k for k in before if before[k] != after.get(k)} == IMPORT


def _state_after(text: str, stop: int) -> tuple[Any, Any, set[int], frozenset[str]]:
    module = cst.parse_module(text)
    w = W.FileWalker(module, "/m.py", "m", False, {})
    w.hooks = build_hooks(w, list(all_checks().values()))
    uses = GuardUses(w)
    for t, hs in uses.hooks().items():
        w.hooks[t] = [*w.hooks.get(t, ()), *hs]
    w.declare()
    w.fire(module)
    w.walk_top(0, stop - 1)
    had = len(w.functions), len(w.classes)
    w.walk_top(stop - 1, stop)
    ids = T.region_ids(module.body[stop - 1 : stop])
    return w, uses, ids, T.made_in(w, had)


def _changed(value: Any) -> bool:
    """Change ``value`` in place (a new entry, a new element); False for a scalar."""
    if isinstance(value, ByIdentity):
        value.put(W.FunctionFacts(qual="probe", name="probe", cls=None, line=0, params=[]), 1)
    elif isinstance(value, ScopedNames):
        value._tables[W.Scope(None, None)] = {"probe": frozenset({"T"})}
    elif isinstance(value, dict):
        value["probe" if not value or type(next(iter(value))) is not int else -1] = ("U",)
    elif isinstance(value, set):
        value.add("probe" if not value or type(next(iter(value))) is not int else -1)
    elif isinstance(value, list):
        value.append("probe")
    elif isinstance(value, W.Scope):
        value.env["probe"] = ("T",)
    else:
        return False
    return True


def test_every_export_changes_the_comparison() -> None:
    """The state after Big (statement 5 of BASE): each table that is neither an output nor
    ignored, changed (an entry added, a scalar set), changes the digest of that table,
    so an edit that changes it refuses the skip; an entry of a private table keyed by one of
    the edited statements' functions does not; the outputs are not compared."""
    w, uses, ids, quals = _state_after(BASE, 6)
    assert "Big.forward" in quals
    base = T.digest(w, uses, ids, quals)
    seen = 0
    for name, obj in T.owners(w, uses):
        for attr, value in list(vars(obj).items()):
            key = (name, attr)
            if attr in T.IGNORED or key in T.OUTPUTS:
                assert key not in base
                continue
            assert key in base
            saved = pickle_copy(value)
            if _changed(value):
                pass
            elif isinstance(value, bool):
                setattr(obj, attr, not value)
            elif isinstance(value, int):
                setattr(obj, attr, value + 1)
            elif value is None:
                setattr(obj, attr, ["probe"])
            else:
                continue
            now = T.digest(w, uses, ids, quals)
            assert now[key] != base[key], key
            setattr(obj, attr, saved)
            seen += 1
    assert seen > 60
    # a private table's entry of an edited function is left out; another function's is not
    guards = uses._fns
    fn = w.functions["Big.forward"]
    assert guards.get(id(fn)) is not None
    guards.get(id(fn)).nested.add("probe")
    assert T.digest(w, uses, ids, quals)[("GuardUses", "_fns")] == base[("GuardUses", "_fns")]
    other = guards.get(id(w.functions["helper"]))
    other.nested.add("probe")
    assert T.digest(w, uses, ids, quals)[("GuardUses", "_fns")] != base[("GuardUses", "_fns")]


def pickle_copy(value: Any) -> Any:
    """A copy to put back after a change (the walk's own objects, shared ones included, are
    kept as they are by a shallow copy of the container)."""
    if isinstance(value, ByIdentity):
        out: ByIdentity[Any, Any] = ByIdentity()
        for i, v in value.items():
            out.put(value.held[i], v)
        return out
    if isinstance(value, ScopedNames):
        c = ScopedNames.__new__(ScopedNames)
        c.__dict__.update(value.__dict__)
        c._tables = dict(value._tables)
        return c
    if isinstance(value, W.Scope):
        scope = W.Scope.__new__(W.Scope)
        scope.__dict__.update(value.__dict__)
        scope.env = dict(value.env)
        return scope
    if isinstance(value, (dict, set, list)):
        return type(value)(value)
    return value


def test_an_export_that_refers_to_an_edited_node_is_not_compared() -> None:
    """A reference to one of the edited statements' nodes outside their private entries makes
    the comparison impossible (``RegionRef``): the skip is refused."""
    w, uses, ids, quals = _state_after(BASE, 6)
    node = next(n for n in w.module.body[5].body.body if isinstance(n, cst.FunctionDef))
    w.module_scope.aliases["probe"] = node.name
    with pytest.raises(T.RegionRef):
        T.digest(w, uses, ids, quals)


# the reads of outputs during the walk, each of the function being walked or relative
# (``tail.OUTPUTS``): (file, the line's code)
OUTPUT_READS = {
    # a sequence number, compared with others of the same function
    ("cl304_int_input_after_break.py", "seq, stmt = len(self.w.pending), id(self.w.current_stmt)"),
    # the reports of the function being walked (``func != qual``: skipped), from its cursor
    ("cl304_int_input_after_break.py", "pending = self.w.pending"),
    ("cl304_int_input_after_break.py", "stmt = self.w.stmt_of.get(id(node))"),
    # whether its own report was written, and that report's arguments
    ("cl119_call_holding_built_object.py", "before = len(w.pending)"),
    ("cl119_call_holding_built_object.py", "if len(w.pending) > before:"),
    (
        "cl119_call_holding_built_object.py",
        "self._open.setdefault(qual, []).append((name, w.pending[-1][3], stmt))",
    ),
}


def test_outputs_are_only_written_by_the_walk() -> None:
    """The outputs are read during the walk only as ``OUTPUT_READS`` lists (reads of the
    function being walked, or relative): in the walker, the guard uses and the checks, every
    other use of them is a write (an append, a ``setdefault``, a store) or their creation."""
    names = {attr for _owner, attr in T.OUTPUTS}
    files = [SRC / "analysis" / "walker.py", SRC / "analysis" / "guards.py"]
    files += sorted((SRC / "checks").glob("*.py"))
    writes = re.compile(r"\.(append|setdefault|extend)\(|\[[^\]]*\]\s*=[^=]|:\s*\S.*=\s*[\[{]")
    seen = set()
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for name in names:
                for m in re.finditer(rf"(?:self|w|walker|uses)\.{name}\b(.*)", line):
                    if (f.name, line.strip()) in OUTPUT_READS:
                        seen.add((f.name, line.strip()))
                        continue
                    if f.name == "walker.py" and "def analyze_module" in _enclosing(f, n):
                        continue  # the post-pass reads them: that is what they are for
                    if re.match(r"\s*self\.\w+:", line) and "def __init__" in _method(f, n):
                        continue  # its creation (an annotated assignment over lines)
                    assert writes.match(m.group(1)), (f.name, n, line)
    assert seen == OUTPUT_READS


def _method(f: Path, n: int) -> str:
    lines = f.read_text(encoding="utf-8").splitlines()[:n]
    for line in reversed(lines):
        if line.lstrip().startswith("def "):
            return line
    return ""


def _enclosing(f: Path, n: int) -> str:
    lines = f.read_text(encoding="utf-8").splitlines()[:n]
    for line in reversed(lines):
        if line.startswith("def ") or line.startswith("class "):
            return line
    return ""


def test_the_fields_left_out_of_the_edited_nodes_hold_layout_only() -> None:
    """``region_ids`` without layout skips fields named like layout: each holds only nodes of
    ``_LAYOUT_TYPES`` (which ``take_tail`` refuses to find in a record) or no node at all."""
    for name in dir(cst):
        t = getattr(cst, name)
        if not (isinstance(t, type) and issubclass(t, cst.CSTNode) and dataclasses.is_dataclass(t)):
            continue
        kept = set(T._fields(t, False))
        for f in dataclasses.fields(t):
            if f.name in kept:
                continue
            types = re.findall(r"libcst\._nodes\.\w+\.(\w+)", str(f.type))
            for tn in types:
                assert issubclass(getattr(cst, tn), T._LAYOUT_TYPES), (name, f.name, tn)


def _fixture_texts() -> list[tuple[Path, str]]:
    out = []
    for p in sorted(FIXTURES.rglob("*.py")):
        text = p.read_text(encoding="utf-8", errors="replace")
        if text.count("\nclass ") + text.count("\ndef ") >= 3 and "torch" in text:
            out.append((p, text))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_random_edits_of_the_fixtures_equal_a_fresh_walk(seed: int) -> None:
    """Random edits (a line inserted at a line's indentation, deleted, or inserted and taken
    out again; moving down the file three times in four) of the fixtures: every version's facts
    through the server's parser equal a fresh analysis (candidates, call sites, positions:
    everything ``FileFacts`` holds), and the tail is taken from the last walk on some."""
    rng = random.Random(seed)
    checks = _checks_for(sorted(all_checks()))
    tails = compared = 0
    for path, text in _fixture_texts()[:30]:
        inp = FileInput(str(path), str(path), "m", False)
        parser = IncrementalParser()
        lines = text.split("\n")
        analyze_source(text.encode(), inp, checks, force=True, parse=parser)
        k = 0
        for _ in range(6):
            k = min(k, len(lines) - 1)
            k = rng.randrange(k, len(lines)) if rng.random() < 0.75 else rng.randrange(len(lines))
            indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())] if lines[k].strip() else ""
            new = list(lines)
            r = rng.random()
            if r < 0.3:
                new.insert(k, indent + "_probe = 1")
            elif r < 0.5:
                del new[k]
            else:
                new.insert(k, indent + rng.choice(["print(1)", "v = torch.zeros(1).item()"]))
            for version in (new, lines) if r >= 0.8 else (new,):
                data = "\n".join(version).encode()
                try:
                    compile(data, str(path), "exec")
                except SyntaxError:
                    break
                got = to_data(analyze_source(data, inp, checks, force=True, parse=parser))
                fresh = to_data(analyze_source(data, inp, checks, force=True))
                assert got == fresh, (path.name, k)
                compared += 1
            else:
                lines = new if r < 0.8 else lines
        tails += parser.walk_memo(inp).tails
    assert compared > 100
    assert tails > 10
