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
from collections.abc import Container, Iterator
from typing import ClassVar

from compilelint.static.analysis.facts import FileFacts, FunctionFacts

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


def unit_of(qual: str, classes: Container[str]) -> str:
    """The unit a function belongs to: a top-level function (``f``, ``f.<locals>.g``) or a
    method of a top-level class (``C.m``, ``C.m.<locals>.g``, ``C.p.<setter>``)."""
    parts = qual.split(".", 2)
    return f"{parts[0]}.{parts[1]}" if len(parts) > 1 and parts[0] in classes else parts[0]


def mark_stubs(f: FileFacts) -> FileFacts:
    """Make the functions of ``f``'s stubbed units record reads of their bodies' facts (after
    a load from the library cache too: it keeps plain data)."""
    if not f.stubbed:
        return f
    stubbed = set(f.stubbed)
    for q, fn in f.functions.items():
        u = unit_of(q, f.classes)
        if u in stubbed and type(fn) is FunctionFacts:
            fn.__class__ = StubFunction
            fn.__dict__["_stub"] = (f.path, u)
    return f


def units_of(f: FileFacts) -> set[str]:
    """The units ``f`` defines."""
    return {unit_of(q, f.classes) for q in f.functions}


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _units(tree: ast.Module) -> dict[str, tuple[ast.stmt, str | None]]:
    """Unit name -> (its def, its top-level class or None). A class nested in a class is part
    of no unit (left whole)."""
    out: dict[str, tuple[ast.stmt, str | None]] = {}
    for st in tree.body:
        if isinstance(st, _FUNCS):
            out[st.name] = (st, None)
        elif isinstance(st, ast.ClassDef):
            for m in st.body:
                if isinstance(m, _FUNCS):
                    # a property's getter and setter share a unit: the first def stands for it
                    out.setdefault(f"{st.name}.{m.name}", (m, st.name))
    return out


_WRITER_CALLS = frozenset({"register_buffer", "register_parameter", "append", "extend"})


def _self_of(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _writes_self(fn: ast.stmt) -> bool:
    """Whether a method may give its class's ``self.<attr>`` facts: it assigns an attribute
    of ``self``, registers a buffer or parameter, or appends to one of ``self``'s lists."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and _self_of(n.value):
            return True
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _WRITER_CALLS
            and _self_of(n.func.value)
        ):
            return True
    return False


def keep_closure(tree: ast.Module, keep: frozenset[str], lines: list[bytes]) -> set[str]:
    """``keep`` with what the walker reads while walking its units: the units never stubbed
    (:func:`_whole`), every method that gives its class's ``self.<attr>`` facts (they are the
    class's, read by every method), every class's ``forward`` (whether it returns a tuple
    decides what calling a submodule of that class gives, anywhere in the file), the
    top-level functions called by name and the methods called on ``self`` (a call of a
    function of this file walked before is specialised with its returns), transitively."""
    units = _units(tree)
    out = {k for k in keep if k in units}
    out |= {
        u
        for u, (fn, cls) in units.items()
        if (cls is not None and (u.endswith(".forward") or _writes_self(fn))) or _whole(fn, lines)
    }
    work = list(out)
    while work:
        fn, cls = units[work.pop()]
        for n in ast.walk(fn):
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            u = None
            if isinstance(f, ast.Name):
                u = f.id
            elif cls is not None and isinstance(f, ast.Attribute) and _self_of(f.value):
                u = f"{cls}.{f.attr}"
            if u is not None and u in units and u not in out:
                out.add(u)
                work.append(u)
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
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
    end = fn.end_lineno or first.lineno
    indent = lines[start - 1][: first.col_offset]
    if start <= fn.lineno or indent.strip():
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
    if start - 1 not in keep:
        keep[start - 1] = indent + b"..."
    for i in range(start - 1, end):
        text = lines[i]
        eol = text[len(text.rstrip(b"\r\n")) :]
        lines[i] = keep.get(i, b"") + eol
    return True


def stub_source(data: bytes, tree: ast.Module, keep: frozenset[str]) -> tuple[bytes, list[str]]:
    """``data`` with the bodies of the units not in ``keep`` (nor in its closure,
    :func:`keep_closure`) blanked, and the names of the units blanked. Only the module's
    direct definitions and their classes' methods are units (a def inside a module-level
    ``if``/``try``, or a class nested in a class, stays whole)."""
    lines = data.splitlines(keepends=True)
    keep_all = keep_closure(tree, keep, lines)
    stubbed: list[str] = []
    for name, (fn, _cls) in _units(tree).items():
        if name in keep_all:
            continue
        if _blank(lines, fn):  # type: ignore[arg-type]
            stubbed.append(name)
    if not stubbed:
        return data, []
    return b"".join(lines), sorted(stubbed)
