"""Python numbers a ``while`` loop carries from one iteration to the next (issue 23, pred23k).

torch 2.13 compiles a data-dependent ``while`` test (``while pos < n and ids[pos] != eos:``,
``while not finished.all():``) as a jump it cannot trace: the graph breaks there and dynamo
compiles the loop's body from its start as a resume function. The loop's next test is the same
jump, so every later iteration re-enters that *same* resume function with the locals of the
iteration. A Python number among them that the body rebinds from its own previous value (``pos
+= 1``, ``step = step + 1``, ``s += 0.5``) comes with a new value on the second entry: the
guard on its first value (``pos == 0``) fails and the resume function recompiles once, then
automatic dynamic makes the numbers symbolic. torch reports the guard where the body first reads
one of them (``pooled = pooled + e[pos]``; ``pos += 1`` when nothing reads it before); with
several, one recompile at the first read of any of them. A ``while`` inside another loop of its
function is not re-entered so (a break in an enclosing loop skips the frame), nor is a loop
whose body breaks itself (dynamo skips the resume function at a break behind a back edge).

Numbers are recognised from their bindings in the function: every binding of the name is a
number expression (an int or float literal, ``len(...)``, a ``.shape[...]``/``.size(...)``
element, arithmetic and ``int``/``float``/``min``/``max``/``abs``/``round`` of number
expressions and of other such names). A name bound from anything else (a tensor, a call of the
model's) is not a number here: no finding rather than a false one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NUMBER_CALLS = frozenset({"len", "int", "float", "min", "max", "abs", "round"})


def _own(nodes: list[ast.stmt] | list[ast.AST]) -> Iterator[ast.AST]:
    """The nodes under ``nodes``, in source order, not entering nested functions or classes."""
    for node in nodes:
        yield node
        children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, _FUNCS)]
        yield from _own(children)


def _bindings(fn: ast.AST) -> dict[str, list[ast.expr | None]]:
    """Each local name's bound values (None: a binding of unknown value, a ``for`` target or
    an unpacking); an augmented assignment binds ``target op value``."""
    out: dict[str, list[ast.expr | None]] = {}
    for node in _own(list(ast.iter_child_nodes(fn))):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(node.value)
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            out.setdefault(n.id, []).append(None)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(
                ast.BinOp(left=ast.Name(id=node.target.id, ctx=ast.Load()), op=node.op,
                          right=node.value)
            )  # fmt: skip
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            for n in ast.walk(node.target if isinstance(node, (ast.For, ast.AsyncFor)) else node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.setdefault(n.id, []).append(None)
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
            out.setdefault(a.arg, []).append(None)  # an argument: its value is the caller's
    return out


def _number(e: ast.expr | None, numbers: set[str]) -> bool:
    """Whether ``e`` is a Python number given the names already known to hold numbers."""
    if e is None:
        return False
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
    if isinstance(e, ast.Name):
        return e.id in numbers
    if isinstance(e, ast.BinOp):
        return _number(e.left, numbers) and _number(e.right, numbers)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _number(e.operand, numbers)
    if isinstance(e, ast.Subscript):  # `x.shape[0]`
        v = e.value
        return isinstance(v, ast.Attribute) and v.attr == "shape"
    if isinstance(e, ast.Call):
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr == "size" and e.args:
            return True  # `x.size(0)`
        if isinstance(f, ast.Name) and f.id in _NUMBER_CALLS and e.args:
            if f.id == "len":
                return True
            return all(_number(a, numbers) for a in e.args) and not e.keywords
    return False


def number_names(fn: ast.AST) -> set[str]:
    """The local names of ``fn`` every binding of which is a Python number (a fixpoint: a name
    bound from another such name is one too)."""
    binds = _bindings(fn)
    numbers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in binds.items():
            if name in numbers:
                continue
            # a self-reference (`pos += 1`) holds a number when the other bindings do
            trial = numbers | {name}
            if all(_number(v, trial) for v in values):
                numbers.add(name)
                changed = True
    return numbers


def _reads(e: ast.AST | None) -> set[str]:
    if e is None:
        return set()
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def enclosing_loops(fn: ast.AST, node: ast.AST) -> list[ast.AST]:
    """The loops of ``fn``'s own frame holding ``node`` (outermost first)."""
    out: list[ast.AST] = []

    def visit(cur: ast.AST, loops: list[ast.AST]) -> bool:
        if cur is node:
            out.extend(loops)
            return True
        for child in ast.iter_child_nodes(cur):
            if isinstance(child, _FUNCS):
                continue
            inner = [*loops, cur] if isinstance(cur, _LOOPS) and child is not cur else loops
            if visit(child, inner):
                return True
        return False

    visit(fn, [])
    return [lp for lp in out if lp is not node]


def carried_numbers(fn: ast.AST, loop: ast.While) -> set[str]:
    """The Python numbers ``loop``'s body rebinds from a value carried over from the previous
    iteration: bound in the body from an expression reading itself or another such name (a
    fixpoint: ``k = n + 1`` with ``n += 1``), and numbers (:func:`number_names`)."""
    numbers = number_names(fn)
    pairs: list[tuple[str, ast.expr]] = []
    for node in _own(loop.body):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            pairs.append((name, ast.Name(id=name, ctx=ast.Load())))  # reads itself
        elif isinstance(node, ast.Assign):
            pairs.extend((t.id, node.value) for t in node.targets if isinstance(t, ast.Name))
    carried: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in pairs:
            if name in carried or name not in numbers:
                continue
            if name in _reads(value) or _reads(value) & carried:
                carried.add(name)
                changed = True
    return carried


def float_names(fn: ast.AST, names: set[str]) -> set[str]:
    """Those of ``names`` (numbers of ``fn``) that hold a float: a binding with a float literal,
    a true division, ``float(...)``, or another such name (a fixpoint)."""
    binds = _bindings(fn)
    floats: set[str] = set()

    def is_float(e: ast.AST | None) -> bool:
        for n in ast.walk(e) if e is not None else ():
            if isinstance(n, ast.Constant) and isinstance(n.value, float):
                return True
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "float":
                return True
            if isinstance(n, ast.Name) and n.id in floats:
                return True
        return False

    changed = True
    while changed:
        changed = False
        for name in names - floats:
            if any(is_float(v) for v in binds.get(name, ())):
                floats.add(name)
                changed = True
    return floats


def first_read(
    loop: ast.While, names: set[str], fn: ast.AST | None = None
) -> tuple[int, str] | None:
    """The first line of ``loop``'s body (in source order) that reads one of ``names``, with
    the name; an augmented assignment reads its target. None when the body reads none. With
    ``fn`` (the function holding the loop), ints come first: torch 2.13 checks the guard on a
    changed int before one on a changed float (a carried float is reported only without an
    int)."""
    if fn is not None:
        ints = names - float_names(fn, names)
        if ints and ints != names:
            got = first_read(loop, ints)
            if got is not None:
                return got
    best: tuple[int, str] | None = None
    for node in _own(loop.body):
        hit = ""
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            hit = node.id
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id in names
        ):
            hit = node.target.id
        if hit and (best is None or line < best[0]):
            best = (line, hit)
    return best
