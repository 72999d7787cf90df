"""Boolean masks whose True positions are known from shapes alone: the selection as a view or
a gather of a static size (shared by CL110 and CL111; issue 22).

Contrastive losses, pairwise losses, attention statistics and complete-graph layers select
with masks built only from shapes: ``~torch.eye(n, dtype=torch.bool)`` (SimCLR's NT-Xent),
``torch.ones(n, n).triu(1).bool()`` (distinct pairs), ``pos[:, None] >= pos[None, :]``
(causal positions). Torch still traces ``x[mask]`` as ``nonzero`` (GB0036), but the count and
the order of the selected positions follow from the shape, so a fixed-shape form selects the
same elements in the same order:

==========================  ===================================================================
mask (rows ``i``, cols ``j``)   selection ``x[m]`` (``x[:, m]``: the same on dims ``p, p + 1``)
==========================  ===================================================================
``i == j + k`` (eye)         ``x.diagonal(k, p, p + 1).movedim(-1, p)``
``i != j`` (``~eye``)        ``x.flatten(p, p + 1)[1:].unflatten(p, (n - 1, n + 1))[:, :-1]
                             .flatten(p, p + 1)`` (square: the row-major order of the
                             off-diagonal entries skips one entry in every ``n + 1``)
``j - i <= k`` (tril)        ``x[torch.tril_indices(r, c, k).unbind()]``
``j - i >= k`` (triu)        ``x[torch.triu_indices(r, c, k).unbind()]``
==========================  ===================================================================

The **proof** is the mask's value: :func:`band` follows its definition through names bound
once in the function (and not written in place afterwards), buffers and attributes set once in
``__init__`` (``register_buffer``), helper functions and methods with one ``return``, and the
steps that keep a 0/1 matrix of a band (``.bool()``, ``.to(...)``, ``> 0``, ``== 0``,
``1 - m``, ``~``, ``logical_not``, ``&``/``*``/``|`` of two bands, ``tril``/``triu`` of one,
``fill_diagonal_``) down to shape-only sources: ``torch.eye``, ``torch.ones``/``ones_like``/
``full(..., True)`` and comparisons of an ``arange`` against itself transposed. A mask with
any other source (a data-dependent tensor) has no band, and the other mask rewrites apply.

The rewrite is exact (values, order, gradients) for a two-dimensional mask over the indexed
dimensions; the verifier re-runs torch on the fixed model. The selected count is a function of
the shape, so what follows (``.view(n, -1)``, a module call, a return) keeps a static shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from compilelint.fix.codemods.base import atom, side_effect, template
from compilelint.fix.codemods.selection import Selection
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite
from compilelint.static.analysis.walker import self_attr


@dataclass(frozen=True)
class Band:
    """The True positions ``(i, j)`` of a 2-D mask as a predicate on ``d = j - i``:
    ``eq``: ``d == k``; ``ne``: ``d != k``; ``le``: ``d <= k``; ``ge``: ``d >= k``; ``all``,
    ``none``."""

    op: str
    k: int = 0


ALL = Band("all")
NONE = Band("none")
_INVERSE = {"eq": "ne", "ne": "eq", "all": "none", "none": "all"}


def invert(b: Band) -> Band:
    if b.op in _INVERSE:
        return Band(_INVERSE[b.op], b.k)
    return Band("ge", b.k + 1) if b.op == "le" else Band("le", b.k - 1)


def meet(a: Band, b: Band) -> Band | None:
    """``a & b`` when it is a band, else None."""
    if a.op == "all" or b == NONE:
        return b
    if b.op == "all" or a == NONE:
        return a
    if a == b:
        return a
    if a.op == b.op == "le":
        return Band("le", min(a.k, b.k))
    if a.op == b.op == "ge":
        return Band("ge", max(a.k, b.k))
    pair = {a.op: a.k, b.op: b.k}
    if set(pair) == {"le", "ge"}:
        if pair["le"] == pair["ge"]:
            return Band("eq", pair["le"])
        return NONE if pair["le"] < pair["ge"] else None
    if set(pair) == {"ne", "le"}:
        return Band("le", pair["le"]) if pair["ne"] > pair["le"] else None
    if set(pair) == {"ne", "ge"}:
        return Band("ge", pair["ge"]) if pair["ne"] < pair["ge"] else None
    if set(pair) == {"eq", "ne"}:
        return NONE if pair["eq"] == pair["ne"] else Band("eq", pair["eq"])
    if set(pair) == {"eq", "le"}:
        return Band("eq", pair["eq"]) if pair["eq"] <= pair["le"] else NONE
    if set(pair) == {"eq", "ge"}:
        return Band("eq", pair["eq"]) if pair["eq"] >= pair["ge"] else NONE
    return None


def join(a: Band, b: Band) -> Band | None:
    got = meet(invert(a), invert(b))
    return None if got is None else invert(got)


_SAME = frozenset(
    {
        "bool",
        "float",
        "double",
        "half",
        "long",
        "int",
        "byte",
        "to",
        "type",
        "cuda",
        "cpu",
        "detach",
        "clone",
        "contiguous",
        "requires_grad_",
    }
)
_DEPTH = 8


def _int(e: cst.BaseExpression | None) -> int | None:
    if e is None:
        return 0
    if isinstance(e, cst.Integer):
        return int(e.value)
    if (
        isinstance(e, cst.UnaryOperation)
        and isinstance(e.operator, cst.Minus)
        and isinstance(e.expression, cst.Integer)
    ):
        return -int(e.expression.value)
    return None


def _truth(e: cst.BaseExpression) -> bool | None:
    """``0``/``False`` -> False, ``1``/``True`` -> True, else None."""
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return e.value == "True"
    if isinstance(e, (cst.Integer, cst.Float)):
        v = float(e.value)
        return True if v == 1 else False if v == 0 else None
    return None


class _Prover:
    def __init__(self, ctx: FixContext) -> None:
        self.ctx = ctx
        self.t = ctx.torch()

    # -- helpers -----------------------------------------------------------------------
    def _torch_fn(self, call: cst.Call) -> str:
        head, _, last = self.ctx.code(call.func).strip().rpartition(".")
        return last if head == self.t else ""

    @staticmethod
    def _args(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        return pos, kw

    # -- the value ---------------------------------------------------------------------
    def band(
        self, e: cst.BaseExpression, fn: cst.FunctionDef | None, depth: int = 0
    ) -> Band | None:
        if depth > _DEPTH:
            return None
        d = depth + 1
        if isinstance(e, cst.Name):
            return self._name(e, fn, d)
        if isinstance(e, cst.Attribute):
            return self._attribute(e, d)
        if isinstance(e, cst.UnaryOperation):
            if isinstance(e.operator, (cst.BitInvert, cst.Not)):
                inner = self.band(e.expression, fn, d)
                return None if inner is None else invert(inner)
            return None
        if isinstance(e, cst.BinaryOperation):
            return self._binary(e, fn, d)
        if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            return self._comparison(e, fn, d)
        if isinstance(e, cst.Call):
            return self._call(e, fn, d)
        return None

    def _binary(self, e: cst.BinaryOperation, fn: cst.FunctionDef | None, d: int) -> Band | None:
        op = e.operator
        if isinstance(op, cst.Subtract):
            one = _truth(e.left)
            left = ALL if one is True else self.band(e.left, fn, d)
            right = self.band(e.right, fn, d)
            if left == ALL and right is not None:
                return invert(right)  # `1 - eye`, `ones - eye`
            return None
        if isinstance(op, (cst.BitAnd, cst.Multiply, cst.BitOr)):
            a, b = self.band(e.left, fn, d), self.band(e.right, fn, d)
            if a is None or b is None:
                return None
            return join(a, b) if isinstance(op, cst.BitOr) else meet(a, b)
        return None

    def _comparison(self, e: cst.Comparison, fn: cst.FunctionDef | None, d: int) -> Band | None:
        c = e.comparisons[0]
        pos = self._positions(e.left, c.comparator, c.operator, fn, d)
        if pos is not None:
            return pos
        # a 0/1 band compared with a constant
        for side, const, flipped in ((e.left, c.comparator, False), (c.comparator, e.left, True)):
            v = _truth(const)
            if v is None:
                continue
            b = self.band(side, fn, d)
            if b is None:
                return None
            o = c.operator
            if flipped:
                o = _FLIP.get(type(o), o)  # type: ignore[assignment]
                o = o() if isinstance(o, type) else o
            keep = _keeps(o, v)
            if keep is None:
                return None
            return b if keep else invert(b)
        return None

    def _call(self, call: cst.Call, fn: cst.FunctionDef | None, d: int) -> Band | None:
        ctx = self.ctx
        f = call.func
        if any(a.star for a in call.args):
            return None
        pos, kw = self._args(call)
        name = self._torch_fn(call)
        if name == "eye":
            return Band("eq") if 1 <= len(pos) <= 2 else None
        if name in ("ones", "ones_like"):
            return ALL
        if name in ("full", "full_like") and len(pos) == 2 and _truth(pos[1]) is True:
            return ALL
        if name in ("tril", "triu") and pos:
            inner = self.band(pos[0], fn, d)
            k = _int(pos[1] if len(pos) > 1 else kw.get("diagonal"))
            return self._tri(inner, name, k)
        if name in _COMPARE and len(pos) == 2 and not kw:
            return self._comparison(_compare(pos[0], name, pos[1]), fn, d)
        if name == "logical_not" and len(pos) == 1:
            inner = self.band(pos[0], fn, d)
            return None if inner is None else invert(inner)
        if name in ("logical_and", "logical_or") and len(pos) == 2:
            a, b = self.band(pos[0], fn, d), self.band(pos[1], fn, d)
            if a is None or b is None:
                return None
            return meet(a, b) if name == "logical_and" else join(a, b)
        if isinstance(f, cst.Attribute) and not name:
            m = f.attr.value
            recv = f.value
            if isinstance(recv, cst.Name) and recv.value == "self":
                return self._returned(ctx.enclosing(call, cst.ClassDef), m, d)
            if m in _SAME:  # a dtype or a device: the same 0/1 positions
                return self.band(recv, fn, d)
            if m in ("tril", "triu", "tril_", "triu_"):
                k = _int(pos[0] if pos else kw.get("diagonal"))
                return self._tri(self.band(recv, fn, d), m.rstrip("_"), k)
            if m in _COMPARE and len(pos) == 1 and not kw:
                return self._comparison(_compare(recv, m, pos[0]), fn, d)
            if m == "logical_not" and not pos:
                inner = self.band(recv, fn, d)
                return None if inner is None else invert(inner)
            if m in ("logical_and", "logical_or") and len(pos) == 1:
                a, b = self.band(recv, fn, d), self.band(pos[0], fn, d)
                if a is None or b is None:
                    return None
                return meet(a, b) if m == "logical_and" else join(a, b)
            if m == "fill_diagonal_" and pos:
                v = _truth(pos[0])
                inner = self.band(recv, fn, d)
                if v is None or inner is None:
                    return None
                return meet(inner, Band("ne")) if not v else join(inner, Band("eq"))
            if m == "new_ones":
                return ALL
            return None
        if isinstance(f, cst.Name):
            return self._returned(None, f.value, d)
        return None

    @staticmethod
    def _tri(inner: Band | None, which: str, k: int | None) -> Band | None:
        if inner is None or k is None:
            return None
        return meet(inner, Band("le" if which == "tril" else "ge", k))

    # -- positions: an arange against itself transposed ---------------------------------
    def _positions(
        self,
        a: cst.BaseExpression,
        b: cst.BaseExpression,
        op: cst.BaseCompOp,
        fn: cst.FunctionDef | None,
        d: int,
    ) -> Band | None:
        pa, pb = self._axis(a, fn, d), self._axis(b, fn, d)
        if pa is None or pb is None or pa[1] != pb[1] or pa[0] == pb[0]:
            return None
        if pa[0] == "col":  # `j OP i`: as `i OP' j`
            op = _FLIP[type(op)]()  # type: ignore[index]
        # i OP j with d = j - i
        if isinstance(op, cst.Equal):
            return Band("eq")
        if isinstance(op, cst.NotEqual):
            return Band("ne")
        if isinstance(op, cst.LessThan):
            return Band("ge", 1)
        if isinstance(op, cst.LessThanEqual):
            return Band("ge", 0)
        if isinstance(op, cst.GreaterThan):
            return Band("le", -1)
        if isinstance(op, cst.GreaterThanEqual):
            return Band("le", 0)
        return None

    def _axis(
        self, e: cst.BaseExpression, fn: cst.FunctionDef | None, d: int
    ) -> tuple[str, str] | None:
        """("row" | "col", the arange's code) of ``r[:, None]`` / ``r[None, :]``,
        ``r.unsqueeze(1)`` / ``r.unsqueeze(0)``, ``r.view(-1, 1)`` / ``r.view(1, -1)``."""
        ctx = self.ctx
        plain = self._arange(e, fn, d)
        if plain is not None:
            return ("col", plain)  # a 1-D arange broadcasts along the last dim
        if isinstance(e, cst.Subscript):
            els = e.slice
            kinds = []
            for el in els:
                s = el.slice
                if isinstance(s, cst.Slice) and s.lower is None and s.upper is None:
                    kinds.append(":")
                elif (
                    isinstance(s, cst.Index)
                    and isinstance(s.value, cst.Name)
                    and (s.value.value == "None")
                ):
                    kinds.append("N")
                else:
                    return None
            axis = {(":", "N"): "row", ("N", ":"): "col", ("N",): "col"}.get(tuple(kinds))
            src = self._arange(e.value, fn, d)
            return None if axis is None or src is None else (axis, src)
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
            m = e.func.attr.value
            args = [ctx.code(a.value).strip() for a in e.args]
            axis = None
            if m == "unsqueeze" and len(args) == 1:
                axis = {"1": "row", "-1": "row", "0": "col"}.get(args[0])
            elif m in ("view", "reshape") and len(args) == 2:
                axis = {("-1", "1"): "row", ("1", "-1"): "col"}.get((args[0], args[1]))
            src = self._arange(e.func.value, fn, d)
            return None if axis is None or src is None else (axis, src)
        return None

    def _arange(self, e: cst.BaseExpression, fn: cst.FunctionDef | None, d: int) -> str | None:
        """The code of ``torch.arange(n)`` (through a name bound once to it)."""
        if isinstance(e, cst.Name) and fn is not None:
            v = self._binding(e, fn)
            if v is None:
                return None
            e = v
        if isinstance(e, cst.Call) and self._torch_fn(e) == "arange":
            pos, _ = self._args(e)
            if len(pos) == 1:
                return self.ctx.code(pos[0]).strip()
        return None

    # -- definitions -------------------------------------------------------------------
    def _binding(self, name: cst.Name, fn: cst.FunctionDef) -> cst.BaseExpression | None:
        """The value of ``name``'s only binding in ``fn`` (a plain assignment), when nothing
        writes into it in place afterwards."""
        from compilelint.fix.codemods.base import bound_names

        ctx = self.ctx
        binds = bound_names(fn.body).get(name.value, [])
        if len(binds) > 1:
            # straight-line rebinding (`mask = torch.eye(n)`; `mask = ~mask.bool()`): every
            # binding a plain statement of the function's own block; the last one before
            # the read is the value
            stmts = [ctx.statement(b) for b in binds]
            if any(st is None or ctx.parent(st) is not fn.body for st in stmts):
                return None
            line = ctx.span(name)[0]
            binds = [b for b in binds if ctx.span(b)[0] < line][-1:]
        if len(binds) != 1 or not isinstance(binds[0], cst.AssignTarget):
            return None
        a = ctx.parent(binds[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return None
        if not isinstance(a.targets[0].target, cst.Name):
            return None
        value: cst.BaseExpression = a.value
        steps = _in_place_steps(ctx, fn, name.value)
        if steps is None:
            return None
        bound, used = ctx.span(a)[0], ctx.span(name)[0]
        for st in steps:
            line = ctx.span(st)[0]
            if bound < line < used:  # `mask.fill_diagonal_(0)`: as `mask = mask.fill_...`
                assert isinstance(st.func, cst.Attribute)
                value = st.with_changes(func=st.func.with_changes(value=value))
        return value

    def _name(self, e: cst.Name, fn: cst.FunctionDef | None, d: int) -> Band | None:
        if fn is None:
            return None
        v = self._binding(e, fn)
        if v is None:
            return None
        return self.band(v, fn, d)

    def _attribute(self, e: cst.Attribute, d: int) -> Band | None:
        """``self.<attr>`` set once in the class, in ``__init__`` (an assignment or
        ``register_buffer``)."""
        attr = self_attr(e)
        if attr is None:
            return None
        cls = self.ctx.enclosing(e, cst.ClassDef)
        if cls is None:
            return None
        found: list[tuple[cst.BaseExpression, cst.FunctionDef]] = []
        for meth in cls.body.body:
            if not isinstance(meth, cst.FunctionDef):
                continue
            for v in _defs_of(meth, attr):
                found.append((v, meth))
            if _written_in_place(meth, lambda n: self_attr(n) == attr):
                return None
        if len(found) != 1 or found[0][1].name.value != "__init__":
            return None
        return self.band(found[0][0], found[0][1], d)

    def _returned(self, cls: cst.ClassDef | None, name: str, d: int) -> Band | None:
        """The band of the one ``return`` of the method ``name`` of ``cls`` (or the
        module-level function ``name``)."""
        body = cls.body.body if cls is not None else self.ctx.module.body
        defs = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name]
        if len(defs) != 1:
            return None
        fn = defs[0]
        rets = _returns(fn)
        if len(rets) != 1 or rets[0].value is None:
            return None
        return self.band(rets[0].value, fn, d)


_COMPARE: dict[str, type[cst.BaseCompOp]] = {
    "eq": cst.Equal,
    "ne": cst.NotEqual,
    "lt": cst.LessThan,
    "le": cst.LessThanEqual,
    "gt": cst.GreaterThan,
    "ge": cst.GreaterThanEqual,
}


def _compare(a: cst.BaseExpression, name: str, b: cst.BaseExpression) -> cst.Comparison:
    """``torch.eq(a, b)`` / ``a.eq(b)`` as the comparison ``a == b`` (its operands the
    original nodes)."""
    return cst.Comparison(a, [cst.ComparisonTarget(_COMPARE[name](), b)])


def _keeps(op: cst.BaseCompOp, v: bool) -> bool | None:
    """Whether ``m OP v`` of a 0/1 matrix ``m`` is ``m`` (True), its inverse (False), or
    neither (None)."""
    if isinstance(op, (cst.Equal, cst.Is)):
        return v
    if isinstance(op, (cst.NotEqual, cst.IsNot)):
        return not v
    if isinstance(op, cst.GreaterThan):
        return True if not v else None  # m > 0
    if isinstance(op, cst.GreaterThanEqual):
        return True if v else None  # m >= 1
    if isinstance(op, cst.LessThan):
        return False if v else None  # m < 1
    if isinstance(op, cst.LessThanEqual):
        return False if not v else None  # m <= 0
    return None


_FLIP: dict[type, type] = {
    cst.LessThan: cst.GreaterThan,
    cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThanEqual,
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
}


def _returns(fn: cst.FunctionDef) -> list[cst.Return]:
    out: list[cst.Return] = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Return(self, n: cst.Return) -> None:
            out.append(n)

    fn.visit(V())
    return out


def _defs_of(fn: cst.FunctionDef, attr: str) -> list[cst.BaseExpression]:
    """The values ``fn`` gives ``self.<attr>``: ``self.<attr> = v``, ``self.register_buffer(
    "<attr>", v)``; a binding of another kind (augmented, tuple, annotated) counts as a value
    that is not a band."""
    out: list[cst.BaseExpression] = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                if self_attr(t.target) == attr:
                    out.append(n.value if len(n.targets) == 1 else cst.Name("None"))
                elif isinstance(t.target, (cst.Tuple, cst.List)) and any(
                    self_attr(el.value) == attr for el in t.target.elements
                ):
                    out.append(cst.Name("None"))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if self_attr(n.target) == attr:
                out.append(cst.Name("None"))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if self_attr(n.target) == attr:
                out.append(n.value if n.value is not None else cst.Name("None"))

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if (
                isinstance(f, cst.Attribute)
                and f.attr.value in ("register_buffer", "register_parameter")
                and len(n.args) >= 2
                and isinstance(n.args[0].value, cst.SimpleString)
                and n.args[0].value.evaluated_value == attr
            ):
                out.append(n.args[1].value)
            if (
                isinstance(f, cst.Name)
                and f.value == "setattr"
                and len(n.args) >= 2
                and isinstance(n.args[1].value, cst.SimpleString)
                and n.args[1].value.evaluated_value == attr
            ):
                out.append(cst.Name("None"))

    fn.visit(V())
    return out


_BAND_STEPS = frozenset({"fill_diagonal_", "tril_", "triu_"})


def _in_place_steps(ctx: FixContext, fn: cst.FunctionDef, name: str) -> list[cst.Call] | None:
    """The in-place band steps on ``name`` (``mask.fill_diagonal_(0)``, ``mask.triu_(1)``),
    each a statement of its own in the function's block; None when anything else writes into
    ``name`` in place (``mask[0, 1] = False``, ``mask.masked_fill_(...)``)."""
    steps: list[cst.Call] = []
    for st in fn.body.body:
        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
            e = st.body[0]
            if (
                isinstance(e, cst.Expr)
                and isinstance(e.value, cst.Call)
                and isinstance(e.value.func, cst.Attribute)
                and isinstance(e.value.func.value, cst.Name)
                and e.value.func.value.value == name
                and e.value.func.attr.value in _BAND_STEPS
            ):
                steps.append(e.value)
    ids = {id(c) for c in steps}

    def other(n: cst.CSTNode) -> bool:
        return isinstance(n, cst.Name) and n.value == name

    if _written_in_place(fn, other, skip=ids):
        return None
    return steps


def _written_in_place(fn: cst.FunctionDef, is_it: object, skip: set[int] | None = None) -> bool:
    """A method ending in ``_`` called on the value, or an item assigned through it."""
    test = is_it  # a predicate on nodes

    hit = False

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            nonlocal hit
            f = n.func
            if (
                id(n) not in (skip or ())
                and isinstance(f, cst.Attribute)
                and f.attr.value.endswith("_")
                and not f.attr.value.startswith("_")
                and test(f.value)  # type: ignore[operator]
            ):
                hit = True

        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            nonlocal hit
            if isinstance(n.target, cst.Subscript) and test(n.target.value):  # type: ignore[operator]
                hit = True

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            nonlocal hit
            t = n.target
            if test(t) or (isinstance(t, cst.Subscript) and test(t.value)):  # type: ignore[operator]
                hit = True

    fn.body.visit(V())
    return hit


def band(ctx: FixContext, m: cst.BaseExpression) -> Band | None:
    """The band of the mask expression ``m`` as :mod:`this module <.structural>` proves it,
    or None when its definition reads something other than shapes."""
    return _Prover(ctx).band(m, ctx.function(m))


_WORDS = {
    "eq": "the diagonal",
    "ne": "the off-diagonal entries",
    "le": "the lower triangle",
    "ge": "the upper triangle",
}


def _pure(e: cst.BaseExpression) -> bool:
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def structural_selection(ctx: FixContext, sel: Selection) -> Rewrite | None:
    """The fixed-shape form of the selection ``sel`` (``x[m]``, ``x[:, m]``,
    ``masked_select``) when ``m`` is a band, else None."""
    node = sel.node
    p = 0
    if isinstance(node, cst.Subscript):
        els = list(node.slice)
        last = els[-1].slice
        if not isinstance(last, cst.Index) or any(
            not (
                isinstance(e.slice, cst.Slice)
                and e.slice.lower is None
                and e.slice.upper is None
                and e.slice.step is None
            )
            for e in els[:-1]
        ):
            return None
        if isinstance(ctx.parent(node), (cst.AssignTarget, cst.AugAssign, cst.Del)):
            return None  # a write through the mask is traced as index_put_
        x, m, p = node.value, last.value, len(els) - 1
    elif isinstance(node, cst.Call):
        x, m = sel.x, sel.m
    else:
        return None
    b = band(ctx, m)
    if b is None or b.op in ("all", "none"):
        return None
    if side_effect(x) is not None:
        return None
    # the indexed dims' sizes and the device, read from a name (the mask's shape is theirs)
    src = m if _pure(m) else x if _pure(x) else None
    if src is None:
        return None
    dev = x if _pure(x) else m
    t = ctx.torch()
    lead = ":, " * p
    xa = atom(x)
    if b.op == "eq":
        off = f"{b.k}, " if b.k else ""
        if p == 0 and isinstance(node, cst.Call):
            new = template(f"__x__.diagonal({off.rstrip(', ')})", x=xa)
        else:
            new = template(f"__x__.diagonal({b.k}, {p}, {p + 1}).movedim(-1, {p})", x=xa)
    elif b.op == "ne":
        if b.k != 0:
            return None
        n = template(f"__s__.shape[{0 if src is m else p}]", s=atom(src))
        new = template(
            f"__x__.flatten({p}, {p + 1})[{lead}1:].unflatten({p}, (__n__ - 1, __n__ + 1))"
            f"[{lead}:, :-1].flatten({p}, {p + 1})",
            x=xa,
            n=n,
        )
    else:
        fn = "tril_indices" if b.op == "le" else "triu_indices"
        r0, r1 = (0, 1) if src is m else (p, p + 1)
        idx = template(
            f"{t}.{fn}(__s__.shape[{r0}], __s__.shape[{r1}], {b.k}, device=__d__.device).unbind()",
            s=atom(src),
            d=atom(dev),
        )
        if p:
            idx = template(f"(slice(None),) * {p} + __i__", i=idx)
        new = template("__x__[__i__]", x=xa, i=idx)
    new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
    mt = ctx.code(m).strip()
    mt = mt if len(mt) <= 40 else mt[:37] + "..."
    return Rewrite(
        title=f"`{mt}` selects {_WORDS[b.op]} (its definition reads only shapes): the same "
        "elements in the same order with a static shape",
        changes=[(node, new)],
        imports=("torch",),
    )


# ---------------------------------------------------------------------------- outputs
OUTPUT_RECIPE = (
    "its size is part of what the model gives back, so no static-shape form returns the "
    "same thing: let torch trace it (`torch._dynamo.config.capture_dynamic_output_shape_ops "
    "= True`, the config remedy `fix --verify` tries), or return the mask with the full "
    "tensor and select after the compiled call (post-processing outside the compiled region)"
)


def output_use(ctx: FixContext, node: cst.BaseExpression) -> str | None:
    """Why the selection ``node`` is an output: it (or the one name it is bound to) is
    returned, yielded or iterated over in its function; None otherwise."""
    fn = ctx.function(node)
    if fn is None:
        return None
    p = ctx.parent(node)
    reads: list[cst.CSTNode] = [node]
    if isinstance(p, cst.Assign) and p.value is node and len(p.targets) == 1:
        t = p.targets[0].target
        if isinstance(t, cst.Name):
            from compilelint.fix.codemods.base import name_nodes

            line = ctx.span(p)[0]
            reads = [r for r in name_nodes(fn.body, t.value) if ctx.span(r)[0] > line]
    for r in reads:
        for a in [r, *ctx.ancestors(r)]:
            if a is fn:
                break
            if isinstance(a, (cst.Return, cst.Yield)):
                return f"The selection is returned: {OUTPUT_RECIPE}"
            if isinstance(a, (cst.For, cst.CompFor)) and any(x is r for x in _iter_nodes(a)):
                return f"The selection is iterated over: {OUTPUT_RECIPE}"
            if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                break
    return None


def _iter_nodes(loop: cst.For | cst.CompFor) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            out.append(n)
            return True

    loop.iter.visit(V())
    return out
