"""Branch speed24e (issue 24): the editor server's per-edit costs outside the walk's logic.

- libcst's node classes answer ``isinstance``/``issubclass`` with ``type``'s tests
  (``walker.exact_node_tests``), with the answers of ``ABCMeta``'s;
- libcst's ``children`` without its visitor, in its order (``walker.ordered_children``: CL101's
  names of a condition, CL304's first use of a name, CL501's mentions);
- CPython's statements after an edit move through a kept list of their nodes
  (``incremental._PyParsed.lined``), still ``ast.parse``'s tree of the whole text;
- the deep-stack thread is one per process (``engine._call_with_deep_stack``).
"""

from __future__ import annotations

import abc
import ast
import os
import threading
from pathlib import Path

import libcst as cst
import pytest

from compilelint.static import engine
from compilelint.static.analysis import walker as W
from compilelint.static.checks import cl304_int_input_after_break as CL304
from compilelint.static.incremental import IncrementalParser

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "fixtures").rglob("*.py"))


def _modules() -> list[cst.Module]:
    out = []
    for p in SOURCES:
        try:
            out.append(cst.parse_module(p.read_bytes()))
        except cst.ParserSyntaxError:
            continue
    return out


class _Collect(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True


def _all_nodes(limit: int = 40_000) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []
    for m in _modules():
        v = _Collect()
        m.visit(v)
        nodes.extend(v.nodes)
        if len(nodes) > limit:
            break
    return nodes


def test_node_classes_answer_isinstance_as_their_abc_does() -> None:
    assert type(cst.Name) is W._ExactNodeMeta  # switched at the walker's import
    assert type(cst.BaseExpression) is W._ExactNodeMeta
    nodes = _all_nodes()
    samples = [nodes[i] for i in range(0, len(nodes), max(1, len(nodes) // 600))]
    others: list[object] = [None, 1, "x", (), [], cst.MaybeSentinel.DEFAULT, object()]
    classes = sorted({cst.CSTNode, *W._NODE_TYPES}, key=lambda c: c.__qualname__)
    checked = 0
    for cls in classes:
        assert type(cls) is W._ExactNodeMeta, cls
        for x in [*samples, *others]:
            assert isinstance(x, cls) == abc.ABCMeta.__instancecheck__(cls, x), (cls, x)
            checked += 1
        for t in {type(x) for x in samples}:
            assert issubclass(t, cls) == abc.ABCMeta.__subclasscheck__(cls, t), (cls, t)
    assert checked > 10_000


def test_a_registration_gives_the_abc_test_back() -> None:
    class Mine(cst.Name):
        pass

    class Virtual:
        pass

    assert type(Mine) is W._ExactNodeMeta  # a subclass made later inherits the metaclass
    assert not isinstance(Virtual(), cst.Name)
    try:
        Mine.register(Virtual)
        # as an ABC: a virtual subclass of a subclass is an instance of the bases too
        assert isinstance(Virtual(), Mine)
        assert isinstance(Virtual(), cst.Name)
        assert isinstance(Virtual(), cst.BaseExpression)
        assert type(cst.Name) is abc.ABCMeta
    finally:
        W.exact_node_tests()  # cst.Name has nothing registered: switched again
    assert type(cst.Name) is W._ExactNodeMeta
    assert not isinstance(Virtual(), cst.Attribute)


class _Holds(cst.CSTVisitor):
    """Every node of a module, and whether each holds an expression (itself or below)."""

    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []
        self.holds: dict[int, bool] = {}
        self.children: dict[int, list[cst.CSTNode]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kids = self.children[id(original_node)] = list(original_node.children)
        self.holds[id(original_node)] = isinstance(original_node, cst.BaseExpression) or any(
            self.holds[id(c)] for c in kids
        )


def test_ordered_children_are_libcsts_children_that_hold_expressions() -> None:
    """``walker.ordered_children``: the same nodes as libcst's ``children`` that hold an
    expression or a name, the same objects in the same order, for every node of the fixtures
    (a keyword argument's name included); what it leaves out holds none."""
    seen: set[type] = set()
    for m in _modules():
        v = _Holds()
        m.visit(v)
        for node in v.nodes:
            mine = list(W.ordered_children(node))
            theirs = v.children[id(node)]
            assert [c for c in mine if v.holds[id(c)]] == [c for c in theirs if v.holds[id(c)]], (
                type(node)
            )
            assert all(any(c is t for t in theirs) for c in mine)
            seen.add(type(node))
    read = {t for t in seen if W._ORDERS.get(t) is not None}
    assert cst.Arg in read and cst.IfExp in read and cst.Call in read and len(read) > 60
    e = cst.parse_expression("f(n=m)")
    assert W.ordered_children(e.args[0]) == [e.args[0].keyword, e.args[0].value]  # type: ignore[attr-defined]
    e = cst.parse_expression("a if b else c")
    assert [c.value for c in W.ordered_children(e)] == ["a", "b", "c"]  # type: ignore[attr-defined]


def test_first_name_finds_the_first_in_source_order() -> None:
    e = cst.parse_expression("f(n=m) + n")
    assert CL304._first_name(e, "n") is e.left.args[0].keyword  # type: ignore[attr-defined]
    e = cst.parse_expression("(n if m else k) * 2")
    assert CL304._first_name(e, "n") is e.left.body  # type: ignore[attr-defined]
    assert CL304._first_name(cst.parse_expression("[n for n in x] + (lambda n: n)"), "n") is None


def test_statements_after_an_edit_move_through_their_kept_nodes() -> None:
    """Lines added and removed at the top, again and again: every statement after the edit
    moves each time (through the node list kept from its first move), and the tree is
    ``ast.parse``'s of the whole text every time."""
    path = max(SOURCES, key=lambda p: p.stat().st_size)
    lines = path.read_text(encoding="utf-8").split("\n")
    first = next(i for i, ln in enumerate(lines) if ln.startswith(("def ", "class ")))
    parser = IncrementalParser()
    parser.python_tree("\n".join(lines).encode(), "f")
    for k in range(6):
        new = list(lines)
        for _ in range(k % 3):
            new.insert(first, "_x = 1")
        text = "\n".join(new).encode()
        got = parser.python_tree(text, "f")
        full = ast.parse(text)
        assert ast.dump(got, include_attributes=True) == ast.dump(full, include_attributes=True)
    kept = parser._py["f"]
    assert kept.lined, "the moved statements' node lists are kept"
    assert set(kept.lined) <= {id(s) for s in kept.tree.body}
    assert parser.py_stats.kept_after >= 4


def test_one_deep_stack_thread_per_process() -> None:
    seen: list[int] = []

    def depth_probe() -> int:
        seen.append(threading.get_ident())
        return sys_recursion()

    engine._stop_deep_thread()
    # `depth_probe` returns an int, not the FileFacts the engine's calls return
    a: int = engine._call_with_deep_stack(depth_probe)  # type: ignore[arg-type, assignment]
    b: int = engine._call_with_deep_stack(depth_probe)  # type: ignore[arg-type, assignment]
    assert a == b >= engine.DEEP_RECURSION
    assert seen[0] == seen[1] != threading.get_ident()
    with pytest.raises(ZeroDivisionError):
        engine._call_with_deep_stack(lambda: 1 / 0)  # type: ignore[arg-type, return-value]
    engine._call_with_deep_stack(depth_probe)  # type: ignore[arg-type]
    assert seen[2] == seen[0]  # an error does not lose the thread

    # a second caller while the thread is busy gets a thread of its own
    inner: list[int] = []

    def nested() -> int:
        t = threading.Thread(
            target=lambda: inner.append(engine._call_with_deep_stack(depth_probe))  # type: ignore[arg-type, func-returns-value]
        )
        t.start()
        t.join()
        return 0

    engine._call_with_deep_stack(nested)  # type: ignore[arg-type]
    assert inner and len(set(seen)) == 2

    # a forked process starts its own; stopping ends the thread
    deep = engine._DEEP[0]
    deep.pid = -1  # as a forked child sees its parent's
    engine._call_with_deep_stack(depth_probe)  # type: ignore[arg-type]
    assert engine._DEEP[0] is not deep and engine._DEEP[0].pid == os.getpid()
    thread = engine._DEEP[0].thread
    engine._stop_deep_thread()
    assert not thread.is_alive() and not engine._DEEP


def sys_recursion() -> int:
    import sys

    return sys.getrecursionlimit()


def test_cpython_bound_decides_nesting_on_the_deep_stack_thread() -> None:
    """The deep-stack thread raises the recursion limit for libcst and the walk, not for
    CPython's parse check: a file only a raised limit parses stays "nesting too deep" (a
    20,000-term ``+`` chain was analysed for minutes and then failed as an internal limit)."""
    from compilelint.static.checks.base import all_checks
    from compilelint.static.engine import FileInput, analyze_source

    data = b"import torch\nx = " + b"+".join([b"1"] * 20_000) + b"\n"
    for _ in range(2):  # the thread is reused: the second call sees the same bound
        facts = analyze_source(
            data, FileInput("d.py", "d.py", "d", False), list(all_checks().values()), force=True
        )
        assert facts.error == "cannot parse: nesting too deep"


def test_loop_shadows_use_the_servers_spliced_tree() -> None:
    """The findings phase takes the CPython tree the editor server's parser keeps for the
    text (no second parse per edit); on a spliced tree it hides the same lines as on a fresh
    parse, and a text the parser has not seen gives no tree."""
    from compilelint.static.analysis.loops import shadowed_breaks
    from compilelint.static.incremental import IncrementalParser

    class Inp:
        real = "m.py"

    head = "import torch\n\n"
    fn = (
        "def f(xs):\n"
        "    out = []\n"
        "    for x in xs:\n"
        "        n = x.sum().item()\n"
        "        out.append(x.nonzero())\n"
        "    return out\n"
    )
    tail = "\n\ndef g(x):\n    return x.item()\n"
    p = IncrementalParser()
    first = (head + fn + tail).encode()
    p.python_tree(first, Inp())
    edited = (head + "y = 1\n" + fn + tail).encode()  # lines after the edit move by one
    tree = p.python_tree(edited, Inp())
    assert p.known_python_tree(edited) is tree
    assert p.known_python_tree(first) is None
    want = [7, 8, 12]
    got = shadowed_breaks(edited.decode(), want, tree)
    assert got == shadowed_breaks(edited.decode(), want) == {8: 7}
