"""Where dynamo guards on module state that traced code changes (issue 23).

torch 2.13 installs the guard on ``self.<attr>`` (an int counter: its value; a list: its length;
a float: its value, once) where the traced frame first reads it, and its recompile reason names
that line: ``tf = self.k / (... self.step ...)`` before ``self.step += 1``, ``if self.queue:``
before ``self.queue.append(k)``. The change is where the fix goes; the first read is where torch
reports the recompile. One changing value gives one guard, so one recompile line: CL501 keeps
its finding at the change and records the guard's line (``Finding.guard_line``), and the
prediction puts the state's recompile there (``static/predict/recompiles/state.py``).

Reads CPython's tree of the file: only for a file with such a change.
"""

from __future__ import annotations

import ast
import functools


def parse_source(source: str | bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@functools.lru_cache(maxsize=32)
def cached_tree(data: bytes) -> ast.Module | None:
    """CPython's tree of a file's text, kept for the next scan of the same text (the editor
    server scans the project on every edit; the trees are only read)."""
    return parse_source(data)


def holder_of(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function holding ``line`` (its ``def`` line to its last line). Descends
    only through the statements whose lines hold ``line`` (a ``def`` is a statement: none
    hides in an expression), instead of walking the whole module: the editor server asks on
    every edit."""
    holder: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    nodes: list[ast.AST] = list(tree.body)
    while nodes:
        inner: list[ast.AST] = []
        for node in nodes:
            if not (node.lineno <= line <= (node.end_lineno or node.lineno)):  # type: ignore[attr-defined]
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                holder = node
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.match_case):
                    inner.extend(child.body)
                elif isinstance(child, (ast.stmt, ast.excepthandler)):
                    inner.append(child)
        nodes = inner
    return holder


def _reads(node: ast.AST, attr: str, upto: int) -> list[int]:
    """Lines at or before ``upto`` that read ``self.<attr>`` in ``node`` (an augmented
    assignment reads its target), not inside a lambda or a nested function (frames of their
    own, run later if at all)."""
    out: list[int] = []
    todo: list[ast.AST] = [node]
    while todo:
        cur = todo.pop()
        if isinstance(cur, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        target = cur.target if isinstance(cur, ast.AugAssign) else cur
        if (
            isinstance(target, ast.Attribute)
            and target.attr == attr
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and (isinstance(target.ctx, ast.Load) or cur is not target)
            and target.lineno <= upto
        ):
            out.append(target.lineno)
        todo.extend(ast.iter_child_nodes(cur))
    return out


def _header(st: ast.stmt) -> list[ast.AST]:
    """The parts of a compound statement that run whenever the statement runs: an ``if``'s or
    ``while``'s test, a ``for``'s iterable, a ``with``'s items (not their bodies)."""
    if isinstance(st, (ast.If, ast.While)):
        return [st.test]
    if isinstance(st, (ast.For, ast.AsyncFor)):
        return [st.iter]
    if isinstance(st, (ast.With, ast.AsyncWith)):
        return [it.context_expr for it in st.items]
    return []


_COMPOUND: tuple[type[ast.stmt], ...] = (
    ast.If,
    ast.While,
    ast.For,
    ast.AsyncFor,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)
if hasattr(ast, "TryStar"):  # Python 3.11+
    _COMPOUND = (*_COMPOUND, ast.TryStar)


def _dominating(body: list[ast.stmt], attr: str, upto: int) -> list[int]:
    """Reads of ``self.<attr>`` that every path from the start of ``body`` to line ``upto``
    passes: in the statements before the one holding ``upto`` (a simple statement whole, a
    compound one's header only), and along the blocks that lead to it."""
    out: list[int] = []
    for st in body:
        if st.lineno > upto:
            break
        holds = st.lineno <= upto <= (st.end_lineno or st.lineno)
        if not isinstance(st, _COMPOUND):
            out.extend(_reads(st, attr, upto))
            if holds:
                break
            continue
        for part in _header(st):
            out.extend(_reads(part, attr, upto))
        if not holds:
            continue
        blocks: list[list[ast.stmt]] = []
        for name in ("body", "orelse", "finalbody"):
            blocks.append(getattr(st, name, []) or [])
        for h in getattr(st, "handlers", []) or []:
            blocks.append(h.body)
        for c in getattr(st, "cases", []) or []:
            blocks.append(c.body)
        for b in blocks:
            if b and b[0].lineno <= upto <= (b[-1].end_lineno or b[-1].lineno):
                out.extend(_dominating(b, attr, upto))
                break
        break
    return out


def first_read_line(tree: ast.Module, attr: str, upto: int, every_path: bool = True) -> int:
    """The first line that reads ``self.<attr>`` (an augmented assignment reads it too, a
    plain assignment's target does not) on every path of the function holding line ``upto``
    (innermost) from its start to ``upto``: where dynamo installs the guard on that state
    (torch 2.13: a read in a branch the call does not take installs none, and the change's own
    read does). ``upto`` when there is no earlier such read (``self.step += 1`` at the top).
    ``every_path=False``: the first read on any path (in a branch's body too, where torch
    reports the guard when the first call takes the branch), for the prediction's second
    candidate line when the two differ."""
    holder = holder_of(tree, upto)
    if holder is None:
        return upto
    if not every_path:
        line = min([upto, *(ln for st in holder.body for ln in _reads(st, attr, upto))])
    else:
        line = min([upto, *_dominating(holder.body, attr, upto)])
    return _through_callee(tree, holder, attr, upto, line, every_path)


def _class_of(tree: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.ClassDef | None:
    """The class whose body defines ``fn`` (a method), else None."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(st is fn for st in node.body):
            return node
    return None


def _through_callee(
    tree: ast.Module,
    holder: ast.FunctionDef | ast.AsyncFunctionDef,
    attr: str,
    upto: int,
    line: int,
    every_path: bool,
) -> int:
    """``line``, or the read of ``self.<attr>`` inside another method or property of the same
    class that the holder reaches first (``self.aux_weight`` or ``self.ramp()`` before the
    holder's own first read): dynamo inlines it, installs the guard at the read in its body and
    torch names that line (torch 2.13: `self._step == 0` at `return min(1.0, self._step /
    self.ramp)` in a property read before `self._step += 1`). One level deep."""
    cls = _class_of(tree, holder)
    if cls is None:
        return line
    best: tuple[int, int] | None = None  # (the holder's line that reaches it, the read's line)
    for st in cls.body:
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) or st is holder:
            continue
        if st.name == "__init__":
            continue
        inner = [ln for b in st.body for ln in _reads(b, attr, st.end_lineno or st.lineno)]
        if not inner:
            continue
        if every_path:
            at = _dominating(holder.body, st.name, upto)
        else:
            at = [ln for b in holder.body for ln in _reads(b, st.name, upto)]
        reach = min(at, default=None)
        if reach is not None and reach < line and (best is None or reach < best[0]):
            best = (reach, min(inner))
    return line if best is None else best[1]
