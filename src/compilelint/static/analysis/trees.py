"""CPython trees of the project's files, as the ast-based analyses read them: a file's text (the
scan's own, an editor's buffer, else the disk: :func:`source_bytes`), its tree kept per text
(:func:`parsed_tree`, ``state.cached_tree``), the ``def`` or ``class`` of a qualified name
(:func:`function_node`, :func:`class_node`), the nodes of one frame (:func:`own_nodes`), the
statement at a line (:func:`statement_at`) and whether it runs whenever its function reaches it
(:func:`surely_runs`). Read by the prediction (:mod:`compilelint.static.predict`) and the
engine's grouping of module-state guards.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

from compilelint.static.analysis.state import cached_tree, holder_of


def source_bytes(path: str, source: Callable[[str], bytes | None] | None) -> bytes:
    """The text of ``path``: the scan's (``source``: the editor's buffer), else the file on disk
    (empty when it cannot be read)."""
    data = source(path) if source is not None else None
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b""
    return data


def source_lines(path: str, source: Callable[[str], bytes | None] | None = None) -> list[str]:
    """The lines of ``path``: the scan's text (``source``: the editor's buffer), else the
    file on disk."""
    try:
        return source_bytes(path, source).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return []


def installed(path: str) -> bool:
    """A file of an installed package (site-packages), not the user's code."""
    parts = path.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts


def parsed_tree(
    path: str,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> ast.Module | None:
    """CPython's tree of ``path``: the scan's own where ``known`` has it (the editor server's
    incremental tree of the text being checked, read only), else a parse of the scan's text
    (``source``) or of the file on disk, kept per text (``state.cached_tree``)."""
    tree = known(path) if known is not None else None
    if tree is not None:
        return tree
    data = source_bytes(path, source)
    return cached_tree(data) if data else None


def function_node(tree: ast.Module, qual: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` of a qualified name (``Cls.method``, ``outer.inner``) in a module's tree."""
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in qual.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        body = node.body  # type: ignore[attr-defined]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def class_node(tree: ast.Module, qual: str) -> ast.ClassDef | None:
    """The ``class`` of a qualified name (``Outer.Inner``) in a module's tree."""
    body: list[ast.stmt] = tree.body
    node: ast.ClassDef | None = None
    for part in qual.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def own_nodes(fn: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function's own frame (not those of nested ``def``s and lambdas): a nested
    ``def``, ``lambda`` or ``class`` is yielded, its insides are not."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))


def statement_at(
    path: str,
    line: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> tuple[ast.AST | None, ast.stmt | None]:
    """The function holding ``line`` of ``path`` (``state.holder_of``) and its statement that
    starts there, each None when not found."""
    tree = parsed_tree(path, source, known)
    if tree is None:
        return None, None
    holder = holder_of(tree, line)
    if holder is None:
        return None, None
    stmt = next(
        (
            n
            for n in ast.walk(holder)
            if isinstance(n, ast.stmt) and n.lineno == line and n is not holder
        ),
        None,
    )
    return holder, stmt


def surely_runs(
    path: str,
    line: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> bool:
    """Whether the statement at ``line`` runs whenever its function's body reaches it: no
    ``if``/``try``/``match`` between the function and the statement, no short-circuit or
    conditional expression in it (``if self.training and random.random() < p:`` breaks in
    training mode only)."""
    tree = parsed_tree(path, source, known)
    if tree is None:
        return False
    holder = holder_of(tree, line)
    if holder is None:
        return False
    node: ast.AST = holder
    while True:
        child = next(
            (
                c
                for c in ast.iter_child_nodes(node)
                if isinstance(c, ast.stmt) and c.lineno <= line <= (c.end_lineno or c.lineno)
            ),
            None,
        )
        if child is None:
            break
        if child.lineno == line or isinstance(child, (ast.If, ast.Try, ast.Match)):
            node = child
            break
        node = child
    if isinstance(node, (ast.Try, ast.Match)) or (isinstance(node, ast.If) and node.lineno != line):
        return False
    head = node.test if isinstance(node, (ast.If, ast.While)) else node
    return not any(isinstance(n, (ast.BoolOp, ast.IfExp)) for n in ast.walk(head))
