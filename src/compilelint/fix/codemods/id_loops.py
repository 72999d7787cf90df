"""A loop over the distinct ids of a tensor that updates one element per id, each from its own
value: a mask of the ids, the same arithmetic on the masked row, one select (CL105).

::

    for tok in set(generated[b].tolist()):
        if logits[b, tok] < 0:
            logits[b, tok] *= penalty
        else:
            logits[b, tok] /= penalty

becomes::

    ids = generated[b].long()
    ids = ids + (ids < 0) * logits[b].shape[0]
    hit = torch.zeros_like(logits[b], dtype=torch.bool).index_fill(0, ids, True)
    upd = torch.where(hit, logits[b], 0)
    upd = torch.where(upd < 0, upd * penalty, upd / penalty)
    logits[b] = torch.where(hit, upd, logits[b])

Sound because each iteration reads and writes only the element ``X[pre, tok]`` and computes
its new value from that element's own value and loop-invariant operands: the iterations are
independent, so their order does not matter, and ``set`` (or ``.unique()``) visits each id
once, so an element named by an id gets the update exactly once and the others none. ``hit``
is exactly "named by an id" (repeated ids set it once); a negative id counts from the end as
the int index did, and an id below ``-size`` or at ``size`` and above raises in
``index_fill`` as the index raised; ``index_fill`` also raises unless ``X[pre]`` and the ids
are 1-d (a 2-d ids tensor made ``set`` raise: lists are unhashable). The ids are taken as
int64 (an int32 tensor's ``tolist`` gave the same ints). Operands other than the element are
numbers or names the loop does not bind; a tensor operand that is not 0-d made the original's
in-place element update raise (its broadcast shape is not the element's), so where the
original ran they combine with each element as with the one it updated. ``if``/``else`` on a
comparison of the element become ``torch.where``. Gradients: a hit element's new value is the
same function of its old value; an element not hit passes its gradient through the outer
``where`` unchanged, and the inner ``where`` feeds the arithmetic a 0 there, so no gradient of
the arithmetic (a NaN from ``0 * inf`` included) reaches it. (A gather and a store through the
ids would give the same values but count a repeated id's gradient once per repeat.)
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    _Fill,
    all_nodes,
    atom,
    number_expr,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite

_AUG: dict[type[cst.BaseAugOp], type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}
_CMP = (
    cst.LessThan,
    cst.GreaterThan,
    cst.LessThanEqual,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


def _ids_of(
    ctx: FixContext, call: cst.Call
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(the loop's iterable, the ids tensor) for ``set(t.tolist())``, ``t.unique().tolist()``
    and ``set(t.unique().tolist())``."""
    recv = call.func.value  # type: ignore[attr-defined]
    it: cst.BaseExpression = call
    unique = (
        isinstance(recv, cst.Call)
        and isinstance(recv.func, cst.Attribute)
        and recv.func.attr.value == "unique"
        and not recv.args
    )
    arg = ctx.parent(call)
    outer = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if (
        isinstance(outer, cst.Call)
        and isinstance(outer.func, cst.Name)
        and outer.func.value == "set"
        and len(outer.args) == 1
        and not outer.args[0].keyword
        and not outer.args[0].star
    ):
        it = outer
    elif not unique:
        return None
    ids = recv.func.value if unique else recv  # type: ignore[union-attr]
    return it, ids


def element_updates(ctx: FixContext, call: cst.Call) -> Rewrite | NoFix | None:
    """The gather/scatter rewrite of a ``for`` loop over the distinct ids of a tensor (see the
    module text); None when ``call`` is not the ids of such a loop, why not when the loop's
    body is not per-element updates."""
    got = _ids_of(ctx, call)
    if got is None:
        return None
    it, ids = got
    loop = ctx.parent(it)
    if not isinstance(loop, cst.For) or loop.iter is not it or loop.asynchronous is not None:
        return None
    if not isinstance(loop.target, cst.Name) or loop.orelse is not None:
        return NoFix("the loop over the ids has a target that is not one name, or an `else`")
    tok = loop.target.value
    if not isinstance(loop.body, cst.IndentedBlock):
        return NoFix("the loop body is not a block")
    elem = _element(ctx, loop, tok)
    if isinstance(elem, NoFix):
        return elem
    sub, _ = elem
    bound = {n.value for n in _bound(loop.body)}
    checker = _Checker(ctx, ctx.code(sub).strip(), tok, bound)
    why = checker.block(loop.body.body)
    if why is not None:
        return NoFix(
            f"the loop over the ids {why} (not only updates of one element from its own value)"
        )
    th = ctx.torch()
    var = _fresh(ctx, "upd")
    idn = _fresh(ctx, "ids")
    ups: list[cst.BaseStatement] = []
    value = checker.value(loop.body.body, cst.Name(var), th)
    hit = _fresh(ctx, "hit")
    if len(sub.slice) > 1:
        row: cst.BaseExpression = sub.with_changes(
            slice=[*sub.slice[:-2], sub.slice[-2].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
    else:
        row = sub.with_changes(slice=[cst.SubscriptElement(cst.Index(cst.Ellipsis()))])
    lines = [
        f"{idn} = __ids__.long()",
        f"{idn} = {idn} + ({idn} < 0) * __row__.shape[0]",
        f"{hit} = {th}.zeros_like(__row__, dtype={th}.bool).index_fill(0, {idn}, True)",
        f"{var} = {th}.where({hit}, __row__, 0)",
        f"{var} = __value__",
        f"__row__ = {th}.where({hit}, {var}, __row__)",
    ]
    fills = {"ids": atom(ids), "row": row, "value": value}
    for text in lines:
        st = cst.parse_statement(text)
        ups.append(st.visit(_Fill({f"__{k}__": v for k, v in fills.items()})))  # type: ignore[arg-type]
    ups[0] = ups[0].with_changes(leading_lines=loop.leading_lines)
    return Rewrite(
        title=(
            "a mask of the ids and one `torch.where` for the loop over the distinct ids: each "
            "iteration updates only its own element from its own value, so the iterations are "
            "independent and each element named by an id is updated once"
        ),
        changes=[(loop, cst.FlattenSentinel(ups))],
        imports=("torch",),
    )


def _element(
    ctx: FixContext, loop: cst.For, tok: str
) -> tuple[cst.Subscript, cst.BaseExpression] | NoFix:
    """(``X[pre, tok]``, ``X[pre]`` or ``X``): the element the body updates, ``X`` a name or an
    attribute chain, ``pre`` Python ints."""
    first = None
    for n in all_nodes(loop.body):
        if isinstance(n, (cst.AugAssign, cst.Assign)):
            t = n.target if isinstance(n, cst.AugAssign) else n.targets[0].target
            if isinstance(t, cst.Subscript):
                first = t
                break
    if first is None:
        return NoFix("the loop over the ids stores no element")
    x = first.value
    root = x
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name):
        return NoFix("the updated tensor is not a name or an attribute chain")
    last = first.slice[-1].slice
    if not (
        isinstance(last, cst.Index) and isinstance(last.value, cst.Name) and last.value.value == tok
    ):
        return NoFix(f"the element is not indexed by `{tok}` last")
    pre = list(first.slice[:-1])
    bound = {n.value for n in _bound(loop.body)}
    if root.value in bound:
        return NoFix(f"the loop rebinds `{root.value}`")
    for e in pre:
        s = e.slice
        if not (
            isinstance(s, cst.Index)
            and s.star is None
            and (number_expr(s.value) or ctx.is_number(s.value))
            and not any(
                n.value in bound | {tok} for n in all_nodes(s.value) if isinstance(n, cst.Name)
            )
        ):
            return NoFix("an index before the id is not a Python int the loop leaves alone")
    if not pre:
        return first, x
    return first, cst.Subscript(
        value=x, slice=[*pre[:-1], pre[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    )


class _Checker:
    """Checks that a body only updates the element from its own value, and builds the value."""

    def __init__(self, ctx: FixContext, elem: str, tok: str, bound: set[str]) -> None:
        self.ctx = ctx
        self.elem = elem
        self.tok = tok
        self.bound = bound

    def _is_elem(self, e: cst.CSTNode) -> bool:
        return isinstance(e, cst.Subscript) and self.ctx.code(e).strip() == self.elem

    def expr(self, e: cst.BaseExpression) -> str | None:
        """None when ``e`` is arithmetic of the element, numbers and names the loop does not
        bind."""
        if self._is_elem(e) or number_expr(e) or self.ctx.is_number(e):
            return None
        if isinstance(e, cst.Name):
            if e.value == self.tok or e.value in self.bound:
                return f"reads `{e.value}`, which the loop binds"
            return None
        if isinstance(e, cst.Attribute) and _chain(e):
            return None
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            return self.expr(e.expression)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
            return self.expr(e.left) or self.expr(e.right)
        return f"computes `{self.ctx.code(e).strip()[:40]}`, not arithmetic of the element"

    def test(self, e: cst.BaseExpression) -> str | None:
        if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            if isinstance(e.comparisons[0].operator, _CMP):
                return self.expr(e.left) or self.expr(e.comparisons[0].comparator)
        return f"tests `{self.ctx.code(e).strip()[:40]}`, not one comparison of the element"

    def block(self, body: object) -> str | None:
        for st in body:  # type: ignore[attr-defined]
            if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
                small = st.body[0]
                if isinstance(small, cst.AugAssign) and type(small.operator) in _AUG:
                    if not self._is_elem(small.target):
                        return f"updates `{self.ctx.code(small.target).strip()[:40]}`"
                    why = self.expr(small.value)
                elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                    if not self._is_elem(small.targets[0].target):
                        return f"assigns `{self.ctx.code(small.targets[0].target).strip()[:40]}`"
                    why = self.expr(small.value)
                else:
                    return f"holds `{self.ctx.code(small).strip()[:40]}`"
                if why is not None:
                    return why
                continue
            if isinstance(st, cst.If):
                why = self.test(st.test) or self.block(st.body.body)
                if why is not None:
                    return why
                if st.orelse is not None:
                    inner = st.orelse.body.body if isinstance(st.orelse, cst.Else) else [st.orelse]
                    why = self.block(inner)
                    if why is not None:
                        return why
                continue
            return f"holds `{self.ctx.code(st).strip().splitlines()[0][:40]}`"
        return None

    def value(self, body: object, cur: cst.BaseExpression, th: str) -> cst.BaseExpression:
        """The element's value after ``body``, given its value before is ``cur``."""
        for st in body:  # type: ignore[attr-defined]
            if isinstance(st, cst.SimpleStatementLine):
                small = st.body[0]
                rhs = self._subst(small.value, cur)  # type: ignore[attr-defined]
                if isinstance(small, cst.AugAssign):
                    op = _AUG[type(small.operator)]()
                    cur = cst.BinaryOperation(left=atom(cur), operator=op, right=atom(rhs))
                else:
                    cur = rhs
                continue
            assert isinstance(st, cst.If)
            test = self._subst(st.test, cur)
            then = self.value(st.body.body, cur, th)
            if st.orelse is None:
                other = cur
            else:
                inner = st.orelse.body.body if isinstance(st.orelse, cst.Else) else [st.orelse]
                other = self.value(inner, cur, th)
            cur = template(f"{th}.where(__c__, __a__, __b__)", c=test, a=then, b=other)
        return cur

    def _subst(self, e: cst.BaseExpression, cur: cst.BaseExpression) -> cst.BaseExpression:
        outer = self

        class T(cst.CSTTransformer):
            def leave_Subscript(self, o: cst.Subscript, u: cst.Subscript) -> cst.BaseExpression:
                return atom(cur) if outer._is_elem(o) else u

        return e.visit(T())  # type: ignore[return-value]


def _chain(e: cst.BaseExpression) -> bool:
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _bound(body: cst.CSTNode) -> list[cst.Name]:
    """Names the body binds (plain assignment targets)."""
    out: list[cst.Name] = []
    for n in all_nodes(body):
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name):
            out.append(n.target)
        if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name):
            out.append(n.target)
    return out


def _fresh(ctx: FixContext, stem: str) -> str:
    used = ctx.used_names()
    name, k = stem, 2
    while name in used:
        name, k = f"{stem}_{k}", k + 1
    return name
