"""Demand-driven analysis of followed library files (issue 24).

Following loads a library file because traced code names something in it, but usually needs
few of its functions: of the 37 files (39,000 lines) a first run over the 200-file transformers
corpus loads, 12 hold a traced function, and ``modeling_utils.py`` (5,300 lines) holds three.
So a library file is first analysed with the bodies of its top-level functions and classes'
methods blanked out (:func:`stub_source`: every line kept, so positions do not move; the
module's own statements, signatures, decorators and class statements stay). What the project
view may read of such a *stub* (a function's calls, returns, decorator and factory facts; a
class's ``self.<attr>`` facts) is exactly what the blanked bodies would have given, so each
read of it is recorded (:class:`Demand`) and the file is analysed again with those units'
bodies kept, until a round reads nothing it does not have. A project computed that way reads
only facts identical to a whole-file analysis's, so it computes the same thing.

A unit is a top-level definition (a function with everything nested in it, or a class with all
of its methods: a method's facts depend on what the class's other methods assign to
``self``). Kept units take the top-level functions they call by name with them (a call of a
function of the same file already walked is specialised with its returns). A unit whose body
gives facts of the whole file (a call of ``torch.compile``, ``allow_in_graph``, a hook
registration; a class defined in a function) is never stubbed.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Iterator
from typing import ClassVar

from compilelint.static.analysis.facts import ClassFacts, FileFacts, FunctionFacts

# FunctionFacts / ClassFacts fields a blanked body changes
FUNCTION_BODY_FIELDS = frozenset(
    {
        "calls",
        "refs",
        "returns",
        "has_loop_break_risk",
        "returned_defs",
        "returned_calls",
        "returned_names",
        "calls_closure_param",
        "guards",
    }
)
CLASS_BODY_FIELDS = frozenset({"attrs", "attr_classes"})


class Demand:
    """The stubbed units read while recording: ``(path, unit)``."""

    active: ClassVar[bool] = False
    units: ClassVar[set[tuple[str, str]]] = set()

    @classmethod
    @contextlib.contextmanager
    def recording(cls) -> Iterator[set[tuple[str, str]]]:
        saved = cls.active, cls.units
        cls.active, cls.units = True, set()
        try:
            yield cls.units
        finally:
            cls.active, cls.units = saved


class StubFunction(FunctionFacts):
    """A function of a stubbed unit: reading what its body gives records a demand for it."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> object:
        if Demand.active and name in FUNCTION_BODY_FIELDS:
            Demand.units.add(object.__getattribute__(self, "__dict__")["_stub"])
        return object.__getattribute__(self, name)


class StubClass(ClassFacts):
    """A class of a stubbed unit (its methods' bodies blanked)."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> object:
        if Demand.active and name in CLASS_BODY_FIELDS:
            Demand.units.add(object.__getattribute__(self, "__dict__")["_stub"])
        return object.__getattribute__(self, name)


def unit_of(qual: str) -> str:
    return qual.split(".", 1)[0]


def mark_stubs(f: FileFacts) -> FileFacts:
    """Make the functions and classes of ``f``'s stubbed units record reads of their bodies'
    facts (after a load from the library cache too: it keeps plain data)."""
    if not f.stubbed:
        return f
    stubbed = set(f.stubbed)
    for q, fn in f.functions.items():
        u = unit_of(q)
        if u in stubbed and type(fn) is FunctionFacts:
            fn.__class__ = StubFunction
            fn.__dict__["_stub"] = (f.path, u)
    for q, cf in f.classes.items():
        u = unit_of(q)
        if u in stubbed and type(cf) is ClassFacts:
            cf.__class__ = StubClass
            cf.__dict__["_stub"] = (f.path, u)
    return f


def units_of(f: FileFacts) -> set[str]:
    """The top-level units ``f`` defines."""
    return {unit_of(q) for q in f.functions} | {unit_of(q) for q in f.classes}


def _defs(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    return {
        st.name: st
        for st in body
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def _called_names(node: ast.AST) -> set[str]:
    return {
        n.func.id
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def keep_closure(tree: ast.Module, keep: frozenset[str]) -> set[str]:
    """``keep`` with the top-level functions its units call by name, transitively (the walker
    specialises such a call with the callee's returns when the callee comes first)."""
    defs = _defs(tree.body)
    out = {k for k in keep if k in defs}
    work = list(out)
    while work:
        for name in _called_names(defs[work.pop()]):
            st = defs.get(name)
            if st is not None and name not in out and not isinstance(st, ast.ClassDef):
                out.add(name)
                work.append(name)
    return out


# calls in a body whose facts are the file's, not the function's (``compiled_refs``,
# ``graph_op_refs``)
_FILE_LEVEL_CALLS = frozenset(
    {
        "compile",
        "optimize",
        "allow_in_graph",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_module_forward_hook",
    }
)


_WHOLE_WORDS = re.compile(rb"compile|optimize|allow_in_graph|_hook|\bclass\b")


def _whole(unit: ast.stmt, lines: list[bytes]) -> bool:
    """Whether a unit's bodies give facts of the file, so it is never stubbed: a call that
    compiles, registers a hook (``compiled_refs``) or a graph op (``graph_op_refs``), a class defined inside a function (the
    file's classes)."""
    for node in ast.walk(unit):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            )
            if name in _FILE_LEVEL_CALLS:
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(isinstance(n, ast.ClassDef) for n in ast.walk(node) if n is not node):
                return True
    return False


def _alone(lines: list[bytes], node: ast.stmt) -> bool:
    """Whether ``node`` has its lines to itself (nothing before it or after it on them)."""
    if lines[node.lineno - 1][: node.col_offset].strip():
        return False
    rest = lines[(node.end_lineno or node.lineno) - 1][node.end_col_offset or 0 :].strip()
    return not rest or rest.startswith(b"#")


def _blank(lines: list[bytes], fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Blank ``fn``'s body in ``lines``: ``...`` on its first line, its imports (wherever they
    are in it: the walker records them for the whole file, in order) kept on their lines at the
    body's indentation, every other line empty. False when that cannot be done (the body starts
    on the ``def`` line, an import shares its line): the body is left as it is."""
    first = fn.body[0]
    end = fn.end_lineno or first.lineno
    indent = lines[first.lineno - 1][: first.col_offset]
    if first.lineno <= fn.lineno or indent.strip():
        return False
    imports = sorted(
        (n for st in fn.body for n in ast.walk(st) if isinstance(n, (ast.Import, ast.ImportFrom))),
        key=lambda n: n.lineno,
    )
    if any(not _alone(lines, n) for n in imports):
        return False
    keep: dict[int, bytes] = {}  # line index -> its new text (without the line ending)
    for n in imports:
        head = lines[n.lineno - 1]
        keep[n.lineno - 1] = indent + head[n.col_offset :].rstrip(b"\r\n")
        for i in range(n.lineno, n.end_lineno or n.lineno):
            keep[i] = lines[i].rstrip(b"\r\n")
    if first.lineno - 1 not in keep:
        keep[first.lineno - 1] = indent + b"..."
    for i in range(first.lineno - 1, end):
        text = lines[i]
        eol = text[len(text.rstrip(b"\r\n")) :]
        lines[i] = keep.get(i, b"") + eol
    return True


def _blank_class(lines: list[bytes], cls: ast.ClassDef) -> bool:
    done = False
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            done = (not _whole(st, lines) and _blank(lines, st)) or done
        elif isinstance(st, ast.ClassDef):
            done = _blank_class(lines, st) or done
    return done


def stub_source(data: bytes, tree: ast.Module, keep: frozenset[str]) -> tuple[bytes, list[str]]:
    """``data`` with the bodies of the top-level units not in ``keep`` (nor called by name
    from a kept one) blanked, and the names of the units blanked. Only the module's direct
    definitions are units (one inside a module-level ``if``/``try`` stays whole)."""
    keep_all = keep_closure(tree, keep)
    lines = data.splitlines(keepends=True)
    stubbed: list[str] = []
    for name, st in _defs(tree.body).items():
        if name in keep_all:
            continue
        if isinstance(st, ast.ClassDef):
            done = _blank_class(lines, st)  # its methods one by one
        else:
            done = not _whole(st, lines) and _blank(lines, st)  # type: ignore[arg-type]
        if done:
            stubbed.append(name)
    if not stubbed:
        return data, []
    return b"".join(lines), sorted(stubbed)
