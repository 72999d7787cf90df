"""analysis/trees.py (seam25, issue 23): CPython trees of the project's files as the ast-based
analyses read them (the prediction, the engine's grouping of module-state guards)."""

from __future__ import annotations

import ast
from pathlib import Path

from compilelint.static.analysis.trees import (
    class_node,
    function_node,
    installed,
    own_nodes,
    parsed_tree,
    source_bytes,
    source_lines,
    statement_at,
    surely_runs,
)

SRC = """\
class Block:
    class Inner:
        def go(self, x):
            return x

    def forward(self, x, n):
        y = x * 2
        if self.training and n > 0:
            y = y + 1
        for i in range(n):
            y = y + i
        f = lambda z: z * 3
        try:
            y = f(y)
        except ValueError:
            pass
        return y


def helper(x):
    def inner(t):
        return t + 1
    return inner(x)
"""


def _write(tmp_path: Path) -> str:
    p = tmp_path / "m.py"
    p.write_text(SRC)
    return str(p)


def test_source_prefers_the_scan_text(tmp_path: Path) -> None:
    path = _write(tmp_path)
    assert source_bytes(path, None) == SRC.encode()
    assert source_bytes(path, lambda p: b"x = 1\n") == b"x = 1\n"
    assert source_bytes(str(tmp_path / "missing.py"), None) == b""
    assert source_lines(path)[0] == "class Block:"
    tree = parsed_tree(path, lambda p: b"x = 1\n")
    assert tree is not None and isinstance(tree.body[0], ast.Assign)
    known = ast.parse("y = 2\n")
    assert parsed_tree(path, known=lambda p: known) is known
    assert parsed_tree(path, lambda p: b"def (:\n") is None  # a syntax error: no tree


def test_qualified_names() -> None:
    tree = ast.parse(SRC)
    fwd = function_node(tree, "Block.forward")
    assert fwd is not None and fwd.lineno == 6
    inner = function_node(tree, "Block.Inner.go")
    assert inner is not None and inner.lineno == 3
    nested = function_node(tree, "helper.inner")
    assert nested is not None and nested.lineno == 21
    assert function_node(tree, "Block") is None  # a class, not a def
    assert function_node(tree, "Block.missing") is None
    cls = class_node(tree, "Block.Inner")
    assert cls is not None and cls.lineno == 2
    assert class_node(tree, "helper") is None


def test_own_nodes_stop_at_nested_frames() -> None:
    tree = ast.parse(SRC)
    helper = function_node(tree, "helper")
    assert helper is not None
    nodes = list(own_nodes(helper))
    assert any(isinstance(n, ast.FunctionDef) and n.name == "inner" for n in nodes)
    # `t + 1` is the nested frame's: not among helper's own nodes
    assert not any(isinstance(n, ast.Name) and n.id == "t" for n in nodes)
    fwd = function_node(tree, "Block.forward")
    assert fwd is not None
    lam = [n for n in own_nodes(fwd) if isinstance(n, ast.Lambda)]
    assert len(lam) == 1
    assert not any(isinstance(n, ast.Name) and n.id == "z" for n in own_nodes(fwd))


def test_statement_at_and_surely_runs(tmp_path: Path) -> None:
    path = _write(tmp_path)
    holder, stmt = statement_at(path, 7)
    assert isinstance(holder, ast.FunctionDef) and holder.name == "forward"
    assert isinstance(stmt, ast.Assign) and stmt.lineno == 7
    assert statement_at(path, 1) == (None, None)  # a class line: no function holds it
    assert surely_runs(path, 7)  # straight-line code of the body
    assert not surely_runs(path, 8)  # `self.training and ...`: a short circuit
    assert not surely_runs(path, 9)  # under the `if`
    assert surely_runs(path, 11)  # a `for` body runs whenever its loop does
    assert not surely_runs(path, 14)  # under a `try`
    assert surely_runs(path, 17)


def test_installed() -> None:
    assert installed("/usr/lib/python3/site-packages/torch/nn/functional.py")
    assert installed("C:\\py\\Lib\\dist-packages\\x.py")
    assert not installed("/home/me/project/model.py")
