"""CL304: a tensor size read as a Python int before a graph break and used after it (the
per-call ints passed to a function that breaks are found in phase 2:
:func:`compilelint.static.analysis.breakpoints.frame_inputs`).

dynamo compiles the code after a graph break as a function of its own (the *resume function*)
whose arguments are the locals still live there. A size read as a Python int before the break
(``b, t, d = x.shape``) is such an argument: an int frame input, specialised on its first value
(guard ``b == 2``), so the first call with another size recompiles the resume function, with
that guard as torch's recompile reason, attributed to the first use of the int after the break
(checked on torch 2.13: ``torch_dynamo_resume_in_forward_at_N``, ``b == 2``).

The break is either a break finding of this function's own body (its statement at the top level
of the function, outside any loop: a break in a loop makes dynamo skip the frame, and a break
in a branch only resumes when the branch runs), or a call, at that level, of a scanned function
that breaks inside (the caller breaks at the call). The second kind is only known in phase 2:
the candidate carries the call's refs in ``args["via"]`` and :mod:`compilelint.static.analysis.
breakpoints` keeps it when a callee of those refs has a kept break.

Which sizes change between calls is not known without an input spec; the last dimension of an
unpacked shape (features, channels-last) and ``x.shape[-1]`` are taken as fixed, every other
size as one that changes with the batch or the length (what serving does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.static.analysis.breakpoints import WHY_INT, break_codes
from compilelint.static.analysis.facts import FunctionFacts, Taint
from compilelint.static.analysis.guards import literal
from compilelint.static.analysis.resume import ByIdentity
from compilelint.static.analysis.walker import FileWalker, iter_children, ordered_children
from compilelint.static.checks.base import Check


@dataclass
class _Size:
    base: str  # `x` (code of the tensor)
    dim: str  # "0", "-2"
    taint: Taint
    seq: int  # pending candidates when bound (a direct break reported later comes after it)
    event: int  # binds and calls seen in the function before it
    stmt: int  # id of the binding statement


@dataclass
class _Point:
    seq: int  # pending index of a direct break; for a call, the function's event count
    stmt: int
    where: str  # "`x.sum().item()`" / "the call `self.router(h)`"
    requires: Taint | None  # direct break: its requires; a call: None (the size's taint)
    via: str = ""  # refs of the call ("\n"-joined)
    call: cst.Call | None = None  # a call not looked at yet


@dataclass
class _Returned:
    """A name bound, at the function's top level, to (an element of) what a call of a scanned
    function returns (``padding_len, x = self._pad(x)``)."""

    source: str  # ``@<i>`` (or ""): the element of what the call returns, decided in phase 2
    via: str  # refs of the call ("\n"-joined)
    call: str  # its text
    stmt: int  # id of the binding statement


@dataclass
class _Fn:
    # the function: the table keyed by its id holds it, so no id there is ever another
    # function's (a redefinition drops the first facts; their id would go to a later one)
    fn: FunctionFacts
    top: frozenset[int]  # ids of the statements directly in the function body
    sizes: dict[str, _Size] = field(default_factory=dict)
    shapes: dict[str, tuple[str, Taint]] = field(default_factory=dict)  # `s = x.shape`
    points: list[_Point] = field(default_factory=list)
    cursor: int = 0  # pending entries already scanned for direct breaks
    events: int = 0  # binds and calls seen so far (orders calls against binds)
    done: set[int] = field(default_factory=set)  # points already reported (by index)
    returned: dict[str, _Returned] = field(default_factory=dict)


class SizeAcrossGraphBreak(Check):
    CODE = "CL304"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._fns: ByIdentity[FunctionFacts, _Fn] = ByIdentity()  # function facts -> state
        self._names: set[str] = set()  # every name ever tracked as a size (a quick filter)

    def _state(self) -> _Fn | None:
        fn = self.w.func
        if fn is None or self.w.untraced_depth:
            return None
        return self._fns.get(id(fn))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.w.func  # fired inside the function's own scope
        if fn is None or not isinstance(node.body, cst.IndentedBlock):
            return
        self._fns.put(fn, _Fn(fn, top=frozenset(id(s) for s in node.body.body)))

    # ------------------------------------------------------------------ sizes
    def _shape_base(self, e: cst.BaseExpression) -> tuple[str, Taint] | None:
        """``x.shape`` / ``x.size()`` of a tensor, or a name bound to one."""
        st = self._state()
        if isinstance(e, cst.Name) and st is not None and e.value in st.shapes:
            return st.shapes[e.value]
        base: cst.BaseExpression | None = None
        if isinstance(e, cst.Attribute) and e.attr.value == "shape":
            base = e.value
        elif (
            isinstance(e, cst.Call)
            and not e.args
            and isinstance(e.func, cst.Attribute)
            and e.func.attr.value == "size"
        ):
            base = e.func.value
        if base is None:
            return None
        taint = self.taint(base)
        return (self.code(base, 30), taint) if taint else None

    def _index(self, e: cst.BaseExpression) -> tuple[str, Taint, int] | None:
        """``x.shape[i]`` / ``x.size(i)`` / ``s[i]``: (base, taint, i)."""
        if isinstance(e, cst.Subscript) and len(e.slice) == 1:
            idx = e.slice[0].slice
            if isinstance(idx, cst.Index):
                got = self._shape_base(e.value)
                ok, i = literal(idx.value)
                if got is not None and ok and type(i) is int:
                    return got[0], got[1], i
            return None
        if (
            isinstance(e, cst.Call)
            and len(e.args) == 1
            and isinstance(e.func, cst.Attribute)
            and e.func.attr.value == "size"
        ):
            ok, i = literal(e.args[0].value)
            taint = self.taint(e.func.value)
            if ok and type(i) is int and taint:
                return self.code(e.func.value, 30), taint, i
        return None

    def _unpacked(self, e: cst.BaseExpression, n: int) -> list[tuple[str, Taint, int] | None]:
        """What ``a, b, c = e`` binds from a shape: ``x.shape`` (the last dim is left out: a
        feature size), ``s[:2]``."""
        got = self._shape_base(e)
        if got is not None:
            return [(got[0], got[1], i) if i < n - 1 else None for i in range(n)]
        if isinstance(e, cst.Subscript) and len(e.slice) == 1:
            sl = e.slice[0].slice
            if isinstance(sl, cst.Slice) and sl.step is None:
                ok, lo = literal(sl.lower) if sl.lower is not None else (True, 0)
                got = self._shape_base(e.value)
                if got is not None and ok and lo == 0:
                    return [(got[0], got[1], i) for i in range(n)]
        return [None] * n

    def _shapeish(self, st: _Fn, e: cst.BaseExpression) -> bool:
        """A syntactic gate before any value is asked for: ``x.shape``, ``x.size(...)``, a
        subscript of those, or a name bound to a shape."""
        if isinstance(e, cst.Subscript):
            e = e.value
        if isinstance(e, cst.Attribute):
            return e.attr.value == "shape"
        if isinstance(e, cst.Call):
            f = e.func
            return isinstance(f, cst.Attribute) and f.attr.value == "size"
        return isinstance(e, cst.Name) and e.value in st.shapes

    def _bind_returned(self, st: _Fn, tgt: cst.BaseExpression, val: cst.BaseExpression) -> None:
        """``a, b = self.helper(x)`` / ``a = self.helper(x)`` at the top level: each name is
        what the call returns there. When the call breaks, the caller resumes after it with the
        result on the stack (``___stack0``): a per-call int in it is guarded where it is first
        used (decided in phase 2: ``args["returned"]``)."""
        for name in _unpacked(tgt):
            if isinstance(name, cst.Name) and name.value in st.returned:
                # rebound: a read on the right side (`n = n + 1`) is its first use
                used = _first_name(val, name.value)
                if used is not None:
                    self._use_returned(st, used)
                st.returned.pop(name.value, None)
        if not isinstance(val, cst.Call) or not self._top_stmt(st):
            return
        ref = self.w.callee_ref(val.func)
        refs = self.w._submodule_call_refs(val.func, ref) or ([ref] if ref else [])
        refs = [r for r in refs if not r.startswith(("D|torch.", "D|math.", "D|numpy."))]
        if not refs:
            return
        names: list[tuple[cst.BaseExpression, str]] = []
        if isinstance(tgt, (cst.Tuple, cst.List)):
            if any(isinstance(el, cst.StarredElement) for el in tgt.elements):
                return
            names = [(el.value, f"@{i}") for i, el in enumerate(tgt.elements)]
        else:
            names = [(tgt, "")]
        stmt = id(self.w.current_stmt)
        call = self.code(val.func, 40)
        for name, src in names:
            if isinstance(name, cst.Name):
                st.returned[name.value] = _Returned(src, "\n".join(refs), call, stmt)
                self._names.add(name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        st = self._state()
        if st is None:
            return
        tgt, val = node.targets[0].target, node.value
        if st.returned or isinstance(val, cst.Call):
            self._bind_returned(st, tgt, val)
        if not self._shapeish(st, val):
            if st.sizes or st.shapes:  # a tracked name rebound to something else
                for name in _unpacked(tgt):
                    if isinstance(name, cst.Name):
                        st.sizes.pop(name.value, None)
                        st.shapes.pop(name.value, None)
            return
        seq, stmt = len(self.w.pending), id(self.w.current_stmt)
        st.events += 1
        binds: list[tuple[cst.BaseExpression, tuple[str, Taint, int] | None]] = []
        if isinstance(tgt, cst.Name):
            shape = self._shape_base(val)
            st.shapes.pop(tgt.value, None)
            if shape is not None and not isinstance(val, cst.Name):
                st.shapes[tgt.value] = shape
            binds.append((tgt, self._index(val)))
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            els = [el.value for el in tgt.elements]
            binds.extend(zip(els, self._unpacked(val, len(els))))
        for t, got in binds:
            if not isinstance(t, cst.Name):
                continue
            if got is None or got[2] == -1:
                st.sizes.pop(t.value, None)
            else:
                st.sizes[t.value] = _Size(got[0], str(got[2]), got[1], seq, st.events, stmt)
                self._names.add(t.value)

    # ------------------------------------------------------------------ break points
    def _top_stmt(self, st: _Fn) -> bool:
        return id(self.w.current_stmt) in st.top and not self.w.in_loop

    def visit_Call(self, node: cst.Call) -> None:
        st = self._state()
        if st is None or not st.sizes or not self._top_stmt(st):
            return  # a call before any size is read cannot split a size's uses
        st.events += 1  # its refs and text are worked out only if a size is used after it
        st.points.append(_Point(st.events, id(self.w.current_stmt), "", None, call=node))

    def _resolve_call(self, p: _Point) -> bool:
        """Fill a call point's refs and text; False when it calls no scanned function."""
        node = p.call
        if node is None:
            return True
        p.call = None
        ref = self.w.callee_ref(node.func)
        refs = self.w._submodule_call_refs(node.func, ref) or ([ref] if ref else [])
        refs = [r for r in refs if not r.startswith(("D|torch.", "D|math.", "D|numpy."))]
        p.via = "\n".join(refs)
        p.where = f"the call of `{self.code(node.func, 40)}()`, which breaks inside"
        return bool(refs)

    def _scan_direct(self, st: _Fn) -> None:
        pending = self.w.pending
        codes = break_codes()
        qual = self.w.scope.qual
        for i in range(st.cursor, len(pending)):
            code, node, req, args, _scope, in_loop, func, _conds = pending[i]
            if code not in codes or in_loop or func != qual or args.get("latent"):
                continue
            if args.get("via"):
                continue  # a break only phase 2 decides (CL116: when the called method breaks)
            if args.get("training"):
                continue
            stmt = self.w.stmt_of.get(id(node))
            if id(stmt) not in st.top:
                continue
            st.points.append(_Point(i, id(stmt), f"`{self.code(node, 40)}`", req))
        st.cursor = len(pending)

    def _use_returned(self, st: _Fn, node: cst.Name) -> None:
        """The first use of a name bound to what a call returned, after that call."""
        r = st.returned[node.value]
        if id(self.w.current_stmt) == r.stmt or _moved(self.w.current_stmt, node):
            return
        del st.returned[node.value]
        if _passed(self.w.current_stmt, node):
            # passed on to a call: dynamo guards where the callee reads it (a function it
            # inlines: `breakpoints.returned_inputs`; one that breaks: `frame_inputs`)
            return
        self.report(
            node,
            name=node.value,
            what=(
                f"is what `{r.call}()` returns, and that call breaks the graph: the function "
                "resumes after it in a frame of its own whose inputs hold the result "
                "(`___stack0`), and this is its first use there"
            ),
            why=(
                "dynamo specialises a Python int (a size computed in the call, a number read "
                "from data) among those inputs on its first value, so a call with another size "
                "or other data recompiles the resume function (guard `___stack0[...] == "
                "<first value>`)"
            ),
            via=r.via,
            returned=r.source,
        )

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self._names:  # the hot path: most names are no tracked size
            return
        st = self._state()
        if st is not None and node.value in st.returned:
            self._use_returned(st, node)
        if st is None or node.value not in st.sizes:
            return
        size = st.sizes[node.value]
        self._scan_direct(st)
        here = id(self.w.current_stmt)
        if here == size.stmt:
            return
        for k, p in enumerate(st.points):
            is_call = p.via or p.call is not None
            after = p.seq > size.event if is_call else p.seq >= size.seq
            if k in st.done or not after or p.stmt in (size.stmt, here):
                continue
            st.done.add(k)
            if not self._resolve_call(p):
                continue
            args = {
                "name": node.value,
                "what": (
                    f"(`{size.base}.shape[{size.dim}]`) is read as a Python int before a graph "
                    f"break ({p.where}) and used here, after it: an int argument of the resume "
                    "function dynamo compiles for the rest of the function"
                ),
                "why": WHY_INT.format(name=node.value, when="a call with another size"),
            }
            if p.via:
                args["via"] = p.via
            self.report(node, requires=p.requires if p.requires is not None else size.taint, **args)


def _unpacked(tgt: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names (and other targets) ``a, b = ...`` binds: ``[a, b]``; ``[tgt]`` for one."""
    if isinstance(tgt, (cst.Tuple, cst.List)):
        return [el.value for el in tgt.elements]
    return [tgt]


def _first_name(e: cst.CSTNode, name: str) -> cst.Name | None:
    """The first ``Name`` node ``name`` in ``e`` (outside lambdas and comprehensions), in the
    order of libcst's ``children`` (``ordered_children``: without its visitor)."""
    if isinstance(e, cst.Name):
        return e if e.value == name else None
    if isinstance(e, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
        return None
    for child in ordered_children(e):
        got = _first_name(child, name)
        if got is not None:
            return got
    return None


def _passed(e: cst.CSTNode | None, node: cst.Name) -> bool:
    """Whether ``node`` is an argument of a call in ``e`` (the statement holding it)."""
    if e is None:
        return False
    if isinstance(e, cst.Call) and any(a.value is node for a in e.args):
        return True
    # ``iter_children``: the walker's child fields (no parentheses, commas, whitespace or
    # keyword names, which hold no call), not libcst's ``children``, which rebuilds the list
    # with a visitor on each call
    return any(_passed(child, node) for child in iter_children(e))


def _moved(stmt: cst.CSTNode | None, node: cst.Name) -> bool:
    """``a = name`` / ``t = (x, name)``: the value is only copied or packed, a use dynamo
    does not specialise (it guards where the value is read)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if not isinstance(small, cst.Assign):
        return False
    v = small.value
    if v is node:
        return True
    return isinstance(v, (cst.Tuple, cst.List)) and any(el.value is node for el in v.elements)
