"""CL101: Python control flow that depends on a tensor's value."""

from __future__ import annotations

import sys
from collections.abc import Callable

import libcst as cst

from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.evaluate import tensor_part
from compilelint.static.analysis.walker import ordered_children, self_attr
from compilelint.static.checks.base import Check

# torch's floating dtypes by attribute name -> the canonical name (``Config.dtype`` values)
FLOAT_DTYPES = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
}


def _names(e: cst.BaseExpression) -> list[cst.Name]:
    """The plain names a condition reads (not attribute names or call targets)."""
    out: list[cst.Name] = []
    stack: list[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.append(n)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)
        elif isinstance(n, cst.Call):
            stack.extend(a.value for a in n.args)
        elif isinstance(n, (cst.Lambda, cst.BaseComp)):
            continue
        else:
            stack.extend(ordered_children(n))  # libcst's ``children``, without its visitor
    return out


class TensorDependentBranch(Check):
    CODE = "CL101"

    def visit_Call(self, node: cst.Call) -> None:
        """``all(x < y for x, y in zip(ts[:-1], ts[1:]))``: the builtin takes ``bool()`` of
        each element, a branch on a tensor's value when the elements are tensors; torch 2.13
        breaks at the call (the caller's ``if`` then tests a Python bool)."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in N.DATA_BOOL_READS:
            self._data_read(node, func)
            return
        if not isinstance(func, cst.Name) or func.value not in ("all", "any"):
            return
        if len(node.args) != 1 or node.args[0].star or self.w.shadowed(func.value):
            return
        taint = V.sources(tensor_part(self.w.element_value(node.args[0].value)))
        if taint:
            stmt = self.w.current_stmt
            test = stmt.test if isinstance(stmt, (cst.If, cst.While)) else None
            conds = _conds_reaching(test, node, self.w._conds_of) if test is not None else []
            n = len(self.w.conds)
            self.w.conds.extend(conds)
            try:
                self.report(node, requires=taint, expr=self.code(node))
            finally:
                del self.w.conds[n:]

    def _test(self, test: cst.BaseExpression, at: cst.CSTNode | None = None) -> None:
        """``at``: the statement (or ``IfExp``) whose test it is, where CPython places the jump."""
        taint = self.taint(test)
        if taint:
            self._jump_line(test, at)
            extra = {}
            guard = self._guard(test)
            if guard is not None:
                expr, truth, when = guard
                extra["latent"] = (
                    f"latent: the tensor part is only evaluated when `{expr}` is {truth}, "
                    "so the inputs decide whether it breaks"
                )
                if when:
                    extra["when"] = when
            else:
                name = self._path_dependent(test)
                if name is not None and self.w.scope.training_tensors.get(name):
                    extra["latent"] = (
                        f"latent: `{name}` is a tensor only on the training path (bound under "
                        "`if self.training`), so it breaks in training mode only"
                    )
                    extra["when"] = "mode==train"
                elif name is not None:
                    extra["latent"] = (
                        f"latent: `{name}` is a tensor on some paths and a Python value on "
                        "others, so the path taken (e.g. training or not) decides whether it breaks"
                    )
            # the guards that short-circuit the tensor part, as conditions on parameters
            # (`max_fpr is None or fpr.sum() == 0`: only when `max_fpr` is not None): the
            # finding is dead where no value the callers pass lets the tensor part run
            conds = self._guard_conds(test)
            n = len(self.w.conds)
            self.w.conds.extend(conds)
            try:
                self.report(test, requires=taint, expr=self.code(test), **extra)
            finally:
                del self.w.conds[n:]

    def _data_read(self, node: cst.Call, func: cst.Attribute) -> None:
        """``torch.equal(x1, x2)``, ``torch.allclose(a, b)``, ``x.is_nonzero()``: a Python
        bool read from tensor data, wherever the call is (a condition, an assignment, a
        return); torch 2.13 breaks at the call (GB0033)."""
        if any(a.star for a in node.args):
            return
        base: cst.BaseExpression = func.value
        while isinstance(base, cst.Attribute):
            base = base.value
        if isinstance(base, cst.Name) and base.value in self.w.imports:
            q = self.qualify(func) or ""
            if not q.startswith("torch.") or q.count(".") != 1:
                return  # numpy.allclose, ...: not tensor data
            parts = [a.value for a in node.args]
        else:
            parts = [func.value, *(a.value for a in node.args)]  # x.equal(y)
        taint: frozenset[str] = frozenset().union(*(self.taint(p) for p in parts))
        if taint:
            self.report(node, requires=taint, expr=self.code(node))

    def _path_dependent(self, test: cst.BaseExpression) -> str | None:
        """A name in the condition that holds a tensor on some paths and a Python constant on
        others (``skip = False`` then ``if self.training: skip = torch.rand([]) < p``)."""
        for node in _names(test):
            v = self.w.value(node)
            ms = list(V.members(v))
            if any(m[0] == "T" for m in ms) and any(m[0] in "SN" for m in ms):
                return node.value
        return None

    def _guard(self, test: cst.BaseExpression) -> tuple[str, str, str] | None:
        """``(guard, "true"/"false", when)`` when the tensor part of a condition sits behind
        Python operands that short-circuit it (``x.dtype == torch.float16 and not
        torch.isfinite(x).all()``): the break is latent, it happens only for some inputs.
        ``when``: the conditions on the compile context (mode, dtype) among those operands,
        ``;``-joined (``dtype==float16``, ``mode==train``): a scan told the context drops the
        finding when one of them is false there (``Config.mode``/``Config.dtype``)."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if not isinstance(test, cst.BooleanOperation):
            return None
        op = type(test.operator)
        operands: list[cst.BaseExpression] = []
        _flatten(test, op, operands, top=True)
        guards: list[cst.BaseExpression] = []
        for e in operands:
            if self.taint(e):
                if not guards:
                    return self._guard(e)  # `(a is not None and a.any()) or ...`
                break
            if self.w.compile_const(e) is None:
                guards.append(e)  # a constant under torch.compile decides nothing per input
        else:
            return None
        if not guards:
            return None
        joiner = " and " if op is cst.And else " or "
        text = joiner.join(self.code(g, 50) for g in guards)
        when = sorted({c for g in guards if (c := self._context_cond(g, op is cst.And))})
        return text, "true" if op is cst.And else "false", ";".join(when)

    def _guard_conds(self, test: cst.BaseExpression) -> list[str]:
        """The conditions (:mod:`~compilelint.static.analysis.conds`) under which the tensor
        part of a short-circuited test is evaluated: every Python operand before it is true
        (``and``) or false (``or``); dynamo evaluates those operands first, on the values it
        specialises on, and never traces the tensor part when they decide the test."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if not isinstance(test, cst.BooleanOperation):
            return []
        op = type(test.operator)
        operands: list[cst.BaseExpression] = []
        _flatten(test, op, operands, top=True)
        out: list[str] = []
        for i, e in enumerate(operands):
            if self.taint(e):
                if any(self.taint(x) for x in operands[i + 1 :]):
                    return out  # a later tensor operand runs when this one short-circuits
                return out + self._guard_conds(e)
            body, orelse = self.w._conds_of(e)
            out.extend(body if op is cst.And else orelse)
        return []

    def _context_cond(self, g: cst.BaseExpression, holds: bool) -> str | None:
        """The condition on the compile context under which guard ``g`` is ``holds`` (so the
        tensor part after it runs): ``self.training`` true -> ``mode==train``, false ->
        ``mode==eval``; ``x.dtype == torch.float16`` true (or ``x.dtype != torch.float16``
        false) -> ``dtype==float16``. Dynamo reads both as constants (``self.training`` is a
        module attribute it guards on, a tensor's dtype is part of its guard), so the context
        decides the branch. None: not a context condition, or one the context cannot decide
        (``x.dtype != torch.float16`` true: an int tensor's dtype is not float16 either)."""
        while isinstance(g, cst.UnaryOperation) and isinstance(g.operator, cst.Not):
            g, holds = g.expression, not holds
        if self_attr(g) == "training":
            return "mode==train" if holds else "mode==eval"
        if not isinstance(g, cst.Comparison) or len(g.comparisons) != 1:
            return None
        cmp = g.comparisons[0]
        sides = (g.left, cmp.comparator)
        dt = next((self._float_dtype(e) for e in sides if self._float_dtype(e)), None)
        if dt is None or not any(
            isinstance(e, cst.Attribute) and e.attr.value == "dtype" for e in sides
        ):
            return None
        op = type(cmp.operator)
        if (op in (cst.Equal, cst.Is) and holds) or (op in (cst.NotEqual, cst.IsNot) and not holds):
            return f"dtype=={dt}"
        return None

    def _float_dtype(self, e: cst.BaseExpression) -> str | None:
        """``torch.float16``/``torch.half``/``torch.bfloat16``/...: the floating dtype named."""
        if not isinstance(e, cst.Attribute):
            return None
        q = self.qualify(e) or ""
        return FLOAT_DTYPES.get(q.removeprefix("torch.")) if q.startswith("torch.") else None

    def _jump_line(self, test: cst.BaseExpression, at: cst.CSTNode | None) -> None:
        """Where torch reports the break: the line of the jump that tests the first tensor
        operand (``if (\n (v < b).any()\n or ...):``). CPython 3.11 gives a jump the line of
        the last comparison the test has evaluated (``a is not None and a.any()``: the
        comparison's line; the tensor operand's own when it is one), else of the statement
        (or of the ``x if t else y``); 3.12 on, every jump is on its operand's first line.
        The finding keeps the test as its node; only its line moves (``FileWalker.jump_at``)."""
        if at is None:
            return
        op: cst.BaseExpression = test
        last_cmp: cst.BaseExpression | None = None
        for leaf in _operands(test):
            if self.taint(leaf):
                op = leaf
                break
            if isinstance(leaf, cst.Comparison):
                last_cmp = leaf
        if sys.version_info >= (3, 12) or isinstance(op, cst.Comparison):
            if op is test:
                return
            at = op
        elif last_cmp is not None:
            at = last_cmp
        self.w.jump_at[id(test)] = at
        self.w.stmt_of.setdefault(id(at), self.w.current_stmt)

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test, node)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test, node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test, node)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._test(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        """``assert a == b and c == d`` / ``assert not (x > 0)`` on tensors: torch 2.13 turns
        ``assert <tensor>`` into an in-graph check, but ``and``/``or``/``not`` take ``bool()``
        of an operand first (``generic_jump TensorVariable``). A non-literal message is CL104's
        (the assert breaks anyway)."""
        if node.msg is not None and not isinstance(node.msg, _LITERAL_MSG):
            return
        parts: list[cst.BaseExpression] = []
        _bool_read(node.test, parts)
        if any(self.taint(p) for p in parts):
            self._test(node.test, node)


def _operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of ``not``/``and``/``or`` whose truth Python tests, in evaluation order
    (the test itself when it is none of these)."""
    out: list[cst.BaseExpression] = []
    stack = [test]
    while stack:
        e = stack.pop()
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
            stack.append(e.expression)
        elif isinstance(e, cst.BooleanOperation):
            stack.extend((e.right, e.left))
        else:
            out.append(e)
    return out


_LITERAL_MSG = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Imaginary)


def _bool_read(test: cst.BaseExpression, out: list[cst.BaseExpression]) -> None:
    """The operands of an ``assert`` test whose truth Python reads before the assert's own
    value: a ``not``'s operand, every operand of an ``and``/``or`` chain but the last (whose
    own reads count)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        out.append(test.expression)
    elif isinstance(test, cst.BooleanOperation):
        ops: list[cst.BaseExpression] = []
        _flatten(test, type(test.operator), ops, top=True)
        out.extend(ops[:-1])
        _bool_read(ops[-1], out)


def _flatten(
    e: cst.BaseExpression, op: type, operands: list[cst.BaseExpression], top: bool = False
) -> None:
    """The operands of a chain of one boolean operator (a module-level function: a recursive
    closure would be a reference cycle)."""
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, op) and (top or not e.lpar):
        _flatten(e.left, op, operands)
        _flatten(e.right, op, operands)
    else:
        operands.append(e)


def _conds_reaching(
    test: cst.BaseExpression,
    node: cst.CSTNode,
    conds_of: Callable[[cst.BaseExpression], tuple[list[str], list[str]]],
) -> list[str]:
    """The conditions under which ``node``, a part of ``test``, is evaluated: the operands
    before it in each ``and`` (``or``) chain around it are true (false):
    ``isinstance(thresholds, list) and not all(...)`` runs ``all`` only for a list."""
    out: list[str] = []
    while True:
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if test is node or not isinstance(test, cst.BooleanOperation):
            return out
        op = type(test.operator)
        operands: list[cst.BaseExpression] = []
        _flatten(test, op, operands, top=True)
        inner = next((e for e in operands if _contains(e, node)), None)
        if inner is None:
            return out
        for e in operands:
            if e is inner:
                break
            body, orelse = conds_of(e)
            out.extend(body if op is cst.And else orelse)
        test = inner


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    if tree is node:
        return True
    return any(_contains(c, node) for c in ordered_children(tree))
