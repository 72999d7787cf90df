"""Where dynamo guards on module state that traced code changes (issue 23).

torch 2.13 installs the guard on ``self.<attr>`` (an int counter: its value; a list: its length;
a float: its value, once) where the traced frame first reads it, and its recompile reason names
that line: ``tf = self.k / (... self.step ...)`` before ``self.step += 1``, ``if self.queue:``
before ``self.queue.append(k)``. The change is where the fix goes; the first read is where torch
reports the recompile. One changing value gives one guard, so one recompile line: CL501 keeps
its finding at the change and records the guard's line (``Finding.guard_line``), and the
prediction puts the state's recompile there (``static/predict.py``).

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


def _holder(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function holding ``line``."""
    holder: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                if holder is None or node.lineno > holder.lineno:
                    holder = node
    return holder


def first_read_line(tree: ast.Module, attr: str, upto: int) -> int:
    """The first line of the function holding line ``upto`` (innermost) that reads
    ``self.<attr>`` (an augmented assignment reads it too, a plain assignment's target does
    not), at or before ``upto``: where dynamo installs the guard on that state. ``upto`` when
    there is no earlier read (the change is the first read: ``self.step += 1`` at the top)."""
    holder = _holder(tree, upto)
    if holder is None:
        return upto
    best = upto
    for sub in ast.walk(holder):
        target = sub.target if isinstance(sub, ast.AugAssign) else sub
        if (
            isinstance(target, ast.Attribute)
            and target.attr == attr
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and (isinstance(target.ctx, ast.Load) or sub is not target)
            and target.lineno < best
        ):
            best = target.lineno
    return best
