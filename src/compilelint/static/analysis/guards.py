"""Phase 1: where a function's parameters meet dynamo's guards.

dynamo turns a Python int, float, bool, str or ``None`` argument into a ``ConstantVariable``
(guarded on its value) on the first compile; on a later call with another value, automatic
dynamic shapes retraces it as a ``SymNodeVariable`` (an int or float symbol), *unless* something
in the traced code needs the concrete value: ``range(n)`` unrolls a loop, a
``torch.nn.functional`` normalisation/dropout/interpolation takes it as a constant, a view or
reshape size. Those uses keep it specialised, so every new value recompiles. A branch on a
symbolic value guards on the branch's outcome (``top_k > 0``).

This recorder runs in the same walk as the checks and writes, for each function, one row per
such use of a parameter into :attr:`FunctionFacts.guards`:
``[param, kind, line, op, literal]`` with ``kind`` one of ``"specialize"`` (the value is baked
in), ``"branch"`` (a condition tests it: ``op``/``literal`` keep a comparison with a literal:
``[">", 0]``; ``is None`` is ``["is", None]``), ``"use"`` (read in traced code: symbolic after
one recompile; the first read), ``"use_top"`` (when that first read sits in a branch, the first
read in a statement of the function's own body, which every path reaches), ``"default"`` (a literal default value, in ``literal``), ``"flag"`` (under ``param``, an
attribute chain ``self.ready`` that an ``if`` tests and its branch sets to ``literal``), and one ``"def"`` row
with the line of the ``def``. A size of a tensor parameter read as a Python int
(``n = x.size(0)``, ``b, t, d = x.shape``, ``x.shape[1]``) is recorded under ``"x#0"``. :mod:`compilelint.static.predict` reads the rows; nothing else does.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from compilelint.static.analysis.facts import FunctionFacts
from compilelint.static.analysis.resume import ByIdentity

Hook = Any

# torch.nn.functional ops whose Python-number arguments dynamo bakes into the graph (torch 2.13:
# one recompile per distinct value); CL301 reads the same list
SPECIALIZING_OPS = frozenset(
    {
        "layer_norm",
        "rms_norm",
        "group_norm",
        "batch_norm",
        "instance_norm",
        "dropout",
        "dropout1d",
        "dropout2d",
        "alpha_dropout",
        "scaled_dot_product_attention",
        "interpolate",
        "upsample",
        "pad",
        "avg_pool1d",
        "avg_pool2d",
        "max_pool1d",
        "max_pool2d",
        "adaptive_avg_pool1d",
        "adaptive_avg_pool2d",
    }
)
_CMP = {
    cst.Equal: "==",
    cst.NotEqual: "!=",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Is: "is",
    cst.IsNot: "is not",
}
_MAX_ROWS = 64  # per function: entry points are small; a long generated function stops here


def literal(node: cst.BaseExpression) -> tuple[bool, Any]:
    """(is a literal, its value) for numbers, strings, True/False/None, and negated numbers."""
    if isinstance(node, cst.Integer):
        return True, int(node.evaluated_value)
    if isinstance(node, cst.Float):
        return True, float(node.evaluated_value)
    if isinstance(node, cst.SimpleString):
        v = node.evaluated_value
        return (True, v) if isinstance(v, str) else (False, None)
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        ok, v = literal(node.expression)
        if ok and isinstance(v, (int, float)) and not isinstance(v, bool):
            return True, -v
    return False, None


def _shape_of(e: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x`` of ``x.shape`` or ``x.size()``."""
    if isinstance(e, cst.Attribute) and e.attr.value == "shape":
        return e.value
    if (
        isinstance(e, cst.Call)
        and not e.args
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "size"
    ):
        return e.func.value
    return None


def _self_chain(e: cst.BaseExpression) -> str | None:
    """``self.a`` / ``self.a.b`` as text, else None."""
    parts: list[str] = []
    while isinstance(e, cst.Attribute) and len(parts) < 3:
        parts.append(e.attr.value)
        e = e.value
    if isinstance(e, cst.Name) and e.value == "self" and parts:
        return ".".join(["self", *reversed(parts)])
    return None


class _FnUses:
    """What the hooks learnt of one function so far. It holds the function: the table keyed by
    the function's id holds every function it keys, so no id there is ever another function's
    (a function's facts that the walk drops, a redefinition, would otherwise free its id for
    the next one, which would then read the dropped one's parameters)."""

    __slots__ = ("fn", "nested", "params", "sizes", "top", "used")

    def __init__(self, fn: FunctionFacts) -> None:
        self.fn = fn
        self.params: frozenset[str] | None = None  # its parameters (not self/cls), when asked
        # local name -> "x#1" (a size of parameter `x` read as a Python int)
        self.sizes: dict[str, str] = {}
        # ids of its top-level statements (nodes of the module the walker holds)
        self.top: frozenset[int] = frozenset()
        self.nested: set[str] = set()  # parameters first used in a branch
        # parameters with a ``"use"`` row (a set: the hook asks at every read of a parameter)
        self.used: set[str] = {r[0] for r in fn.guards if r[1] == "use"}


class GuardUses:
    """Hooks that record the guard-relevant uses of each function's parameters."""

    def __init__(self, walker: Any) -> None:
        self.w = walker
        self.sites: list[tuple[list[Any], cst.CSTNode]] = []  # rows whose line comes later
        self._fns: ByIdentity[FunctionFacts, _FnUses] = ByIdentity()  # fn -> what is known of it

    def hooks(self) -> dict[type, list[Hook]]:
        return {
            cst.If: [self.visit_If],
            cst.While: [self.visit_If],
            cst.IfExp: [self.visit_If],
            cst.Call: [self.visit_Call],
            cst.Name: [self.visit_Name],
            cst.FunctionDef: [self.visit_FunctionDef],
            cst.Assign: [self.visit_Assign],
        }

    # ------------------------------------------------------------------ helpers
    def _uses(self, fn: FunctionFacts) -> _FnUses:
        got = self._fns.get(id(fn))
        if got is None:
            got = _FnUses(fn)
            self._fns.put(fn, got)
        return got

    def _fn(self) -> FunctionFacts | None:
        fn = self.w.func
        if fn is None or self.w.untraced_depth:
            return None
        return fn

    def _size_of(self, fn: FunctionFacts, node: cst.BaseExpression) -> str | None:
        """``x.shape[1]``, ``x.size(1)``, ``x.size()[1]`` with ``x`` a parameter -> ``"x#1"``."""
        dim: cst.BaseExpression | None = None
        base: cst.BaseExpression | None = None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            idx = node.slice[0].slice
            if isinstance(idx, cst.Index):
                dim = idx.value
                base = _shape_of(node.value)
        elif (
            isinstance(node, cst.Call)
            and len(node.args) == 1
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
        ):
            base, dim = node.func.value, node.args[0].value
        if base is None or dim is None or not isinstance(base, cst.Name):
            return None
        ok, d = literal(dim)
        if not ok or not isinstance(d, int) or isinstance(d, bool):
            return None
        name = self._param(fn, base)
        return f"{name}#{d}" if name is not None and "#" not in name else None

    def visit_Assign(self, node: cst.Assign) -> None:
        fn = self._fn()
        if fn is None or len(node.targets) != 1:
            return
        sizes = self._uses(fn).sizes
        tgt, val = node.targets[0].target, node.value
        pairs: list[tuple[cst.BaseExpression, str | None]] = []
        if isinstance(tgt, cst.Name):
            pairs.append((tgt, self._size_of(fn, val)))
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            els = [e.value for e in tgt.elements]
            whole = _shape_of(val)
            name = self._param(fn, whole) if whole is not None else None
            if name is not None and "#" not in name:
                pairs.extend((e, f"{name}#{i}") for i, e in enumerate(els))
            elif isinstance(val, (cst.Tuple, cst.List)) and len(val.elements) == len(els):
                pairs.extend((e, self._size_of(fn, v.value)) for e, v in zip(els, val.elements))
            else:
                pairs.extend((e, None) for e in els)
        for t, size in pairs:
            if isinstance(t, cst.Name):
                if size is not None:
                    sizes[t.value] = size
                else:
                    sizes.pop(t.value, None)

    def _param(self, fn: FunctionFacts, node: cst.BaseExpression) -> str | None:
        uses = self._uses(fn)
        sizes = uses.sizes
        if sizes and isinstance(node, cst.Name) and node.value in sizes:
            return sizes[node.value]
        if not isinstance(node, cst.Name):
            return self._size_of(fn, node) if isinstance(node, (cst.Subscript, cst.Call)) else None
        names = uses.params
        if names is None:
            names = uses.params = frozenset(
                p.name for p in fn.params if p.name not in ("self", "cls")
            )
        return node.value if node.value in names else None

    def _row(
        self,
        fn: FunctionFacts,
        name: str,
        kind: str,
        node: cst.CSTNode,
        op: str = "",
        lit: Any = None,
    ) -> bool:
        """Add a row (whether there was room for it)."""
        if len(fn.guards) >= _MAX_ROWS:
            return False
        row: list[Any] = [name, kind, 0, op, lit]
        fn.guards.append(row)
        self.sites.append((row, node))
        # the statement that holds it: its position comes from that statement alone
        self.w.stmt_of.setdefault(id(node), self.w.current_stmt)
        return True

    # ------------------------------------------------------------------ hooks
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.w.func  # the walker fires this hook inside the function's own scope
        if fn is None:
            return
        self._row(fn, "", "def", node.name)
        if isinstance(node.body, cst.IndentedBlock):
            self._uses(fn).top = frozenset(id(st) for st in node.body.body)
        p = node.params
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            if prm.default is not None:
                ok, lit = literal(prm.default)
                if ok:  # the value a call that leaves the argument out passes
                    self._row(fn, prm.name.value, "default", prm.default, "", lit)

    def visit_Name(self, node: cst.Name) -> None:
        w = self.w
        fn = w.scope.facts  # ``w.func``, without the property's call: this hook sees every name
        if fn is None or w.untraced_depth:
            return
        # ``self._param(fn, node)`` for a name, inline: this hook sees every name walked
        uses = self._fns.get(id(fn))
        if uses is None:
            uses = self._uses(fn)
        sizes, value = uses.sizes, node.value
        if sizes and value in sizes:
            name: str | None = sizes[value]
        else:
            names = uses.params
            if names is None:
                name = self._param(fn, node)
            else:
                name = value if value in names else None
        if name is None or "#" in name:
            return
        nested = uses.nested
        if name not in uses.used:
            if self._row(fn, name, "use", node):
                uses.used.add(name)
            if id(self.w.current_stmt) not in uses.top:
                nested.add(name)
        elif nested and name in nested and id(self.w.current_stmt) in uses.top:
            # the first use sat in a branch: the first one every path reaches (torch reports a
            # guard where the value is first read on the path taken)
            nested.discard(name)
            self._row(fn, name, "use_top", node)

    def visit_If(self, node: cst.If | cst.While | cst.IfExp) -> None:
        fn = self._fn()
        if fn is None:
            return
        self._test(fn, node.test)
        if isinstance(node, cst.If) and isinstance(node.body, cst.IndentedBlock):
            self._flag(fn, node)

    def _flag(self, fn: FunctionFacts, node: cst.If) -> None:
        """``if not self.ready: ...; self.ready = True`` (``self.cfg.warmup`` too): a flag on
        an object that the branch it guards sets to another literal. dynamo guards on the
        flag's value; the next call sees the new one and recompiles, once."""
        test = node.test
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        chain = _self_chain(test)
        if chain is None:
            return
        assert isinstance(node.body, cst.IndentedBlock)
        for st in node.body.body:
            if not isinstance(st, cst.SimpleStatementLine):
                continue
            for small in st.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    ok, lit = literal(small.value)
                    if ok and _self_chain(small.targets[0].target) == chain:
                        self._row(fn, chain, "flag", node.test, "=", lit)
                        return

    def _test(self, fn: FunctionFacts, test: cst.BaseExpression) -> None:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._test(fn, test.expression)
            return
        if isinstance(test, cst.BooleanOperation):
            self._test(fn, test.left)
            self._test(fn, test.right)
            return
        name = self._param(fn, test)
        if name is not None:
            self._row(fn, name, "branch", test, "truth", None)
            return
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            op = _CMP.get(type(comp.operator))
            if op is None:
                return
            left, right = test.left, comp.comparator
            name = self._param(fn, left)
            other = right
            if name is None:
                name, other = self._param(fn, right), left
                op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            if name is None:
                return
            ok, lit = literal(other)
            self._row(fn, name, "branch", test, op if ok else "", lit if ok else None)

    def visit_Call(self, node: cst.Call) -> None:
        fn = self._fn()
        if fn is None or not node.args:
            return
        func = node.func
        q = self.w.qualify(func) or ""
        special = False
        if q.startswith("torch.nn.functional.") and q.rsplit(".", 1)[-1] in SPECIALIZING_OPS:
            special = True
        elif isinstance(func, cst.Name) and func.value == "range" and not self.w.shadowed("range"):
            special = True
        if not special:
            return
        for a in node.args:
            for name in self._names_in(fn, a.value):
                self._row(fn, name, "specialize", node)

    def _names_in(self, fn: FunctionFacts, expr: cst.BaseExpression) -> list[str]:
        """Parameters an argument carries as plain Python values: ``n``, ``(n, n)``, ``n * 2``,
        ``-n`` (not ``x.shape[n]`` or ``f(n)``: those pass something else)."""
        name = self._param(fn, expr)
        if name is not None:
            return [name]
        if isinstance(expr, (cst.Tuple, cst.List)):
            return [n for el in expr.elements for n in self._names_in(fn, el.value)]
        if isinstance(expr, cst.BinaryOperation):
            return self._names_in(fn, expr.left) + self._names_in(fn, expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return self._names_in(fn, expr.expression)
        return []
