"""Branch speed24g: the walk of calls through objects keyed by node type, and guard uses found in
a set, give what the walks they replace gave."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import libcst as cst

from compilelint.static.analysis import dispatch as D
from compilelint.static.analysis.facts import FunctionFacts
from compilelint.static.analysis.guards import _MAX_ROWS, GuardUses
from compilelint.static.engine import FileInput, _checks_for, all_checks, analyze_source

ROOT = Path(__file__).resolve().parents[1]
# the fixtures, and the stdlib's own ``ast`` and ``typing`` (every kind of statement and
# expression: match statements, f-strings, comprehensions, decorators, lambdas in defaults)
SOURCES = [*sorted((ROOT / "fixtures").rglob("*.py")), Path(ast.__file__), Path(typing.__file__)]
CHECKS = _checks_for(sorted(all_checks()))

_NOT_OWN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.While, ast.comprehension)
_LEAVES = (
    ast.Name,
    ast.Constant,
    ast.expr_context,
    ast.operator,
    ast.cmpop,
    ast.unaryop,
    ast.boolop,
)


def _reference(node: ast.AST, in_loop: bool, out: list[tuple[ast.AST, bool]]) -> None:
    """The walk as it was: every field, ``isinstance`` per child."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _NOT_OWN):
            continue
        if type(child) is ast.Assign or type(child) is ast.Call:
            out.append((child, in_loop))
        if not isinstance(child, _LEAVES):
            _reference(child, in_loop or isinstance(child, _LOOPS), out)


_EXTRA = """
def f(xs, k=make(), *a, key=lambda: g(), **kw) -> h():
    @deco(call())
    def inner():
        return never()
    for x in xs:
        y = x.run()
        match y:
            case Point(x=0, y=z) if z.ok():
                w = z.get()
            case {"k": v, **rest}:
                pass
    while cond():
        break
    else:
        after()
    print(f"{fmt(x)!r:>{width()}}", [c() for c in xs if c.keep()], {k: v() for k, v in kw})
    global G
    try:
        t = risky()
    except (E1, E2) as e:
        e.handle()
    with open(p()) as fh, lock:
        fh.read()
    a, *b = split()
    c: int = typed()
    c += more()
    del xs[idx()]
    assert check(), msg()
    return (yield gen())
"""


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_bytes())
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_own_nodes_are_the_reference_walks() -> None:
    """``dispatch._own_nodes``: the same nodes, in the same order, with the same loop flags as
    the ``isinstance`` walk it replaced, on every function of the fixtures, of two stdlib
    modules, and of a function holding each kind of statement."""
    extra = ast.parse(_EXTRA)
    fns: list[ast.FunctionDef | ast.AsyncFunctionDef] = [
        n for n in ast.walk(extra) if isinstance(n, ast.FunctionDef)
    ]
    for path in SOURCES:
        fns += _functions(path)
    assert len(fns) > 500
    seen_loop = seen_plain = False
    for fn in fns:
        want: list[tuple[ast.AST, bool]] = []
        _reference(fn, False, want)
        got = D._own_nodes(fn)
        assert [(id(n), loop) for n, loop in got] == [(id(n), loop) for n, loop in want], fn.name
        seen_loop = seen_loop or any(loop for _n, loop in got)
        seen_plain = seen_plain or any(not loop for _n, loop in got)
    assert seen_loop and seen_plain
    calls = [n for n, _ in D._own_nodes(fns[0]) if isinstance(n, ast.Call)]
    names = {ast.unparse(c.func) for c in calls}
    # the function's own defaults and annotations are walked; a nested def (its decorators
    # too) and a lambda are code of their own
    assert {"make", "h", "x.run", "z.ok", "z.get", "fmt", "width", "c", "c.keep"} <= names
    assert not names & {"never", "g", "deco", "call"}


def test_first_use_rows_are_kept_once_per_parameter() -> None:
    """Every read of a parameter in traced code records its first use once (``"use"``) and,
    when that first read was in a branch, the first read at the top level (``"use_top"``),
    whatever the number of reads; a function whose rows are full records no more."""
    reads = "\n".join(f"    y = y + x * {i}" for i in range(50))
    src = (
        "import torch\n\n"
        "def f(x, n, flag):\n"
        "    y = x\n"
        "    if flag:\n"
        "        y = y + n\n"
        f"{reads}\n"
        "    y = y + n\n"
        "    return y\n"
    )
    facts = analyze_source(src.encode(), FileInput("f.py", "f.py", "f", False), CHECKS, force=True)
    rows = facts.functions["f"].guards
    uses = [(r[0], r[1]) for r in rows if r[1] in ("use", "use_top")]
    assert uses == [("x", "use"), ("flag", "use"), ("n", "use"), ("n", "use_top")]
    # full rows: no row, and the parameter is not taken as used
    fn = FunctionFacts(qual="g", name="g", cls=None, line=1, params=[])
    fn.guards = [["p", "branch", 0, "", None]] * _MAX_ROWS
    hooks = GuardUses(None)
    assert hooks._row(fn, "x", "use", cst.Name("x")) is False
    assert len(fn.guards) == _MAX_ROWS and not hooks.sites
