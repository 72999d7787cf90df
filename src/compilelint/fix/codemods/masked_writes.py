"""A write through a boolean mask whose value reads through the same mask, as metrics code
writes it (torchmetrics' ``r2_score``: ``raw_scores[cond] = 1 - (rss[cond] / tss[cond])``;
``pearson_corrcoef``: ``corrcoef[valid] = (corr[valid] / (vx[valid] * vy[valid]).sqrt())``;
``retrieval_normalized_dcg``: ``gain[~m] /= norm[~m]``). The reads ``a[m]`` have a
data-dependent shape (a graph break each); the write itself keeps ``x``'s shape.

- ``x[m] = f(a[m], b[m], numbers)`` with ``f`` elementwise ->
  ``x = torch.where(m, f(a, b, numbers), x)``: equal where ``m`` holds (``f`` of the same
  elements), ``x`` elsewhere. When ``f`` can make ``inf``/``nan`` from the elements the mask
  leaves out (a division, ``sqrt``, ``log``, a power), each read is
  ``torch.where(m, a, 1)`` instead: the values there do not matter, but a ``nan`` there
  would reach the gradients of ``a`` through ``torch.where``'s backward (0 * inf), which the
  original never computed.
- ``x[m] op= a[m]`` (``+=``, ``-=``, ``*=``, ``/=``) -> ``x op= torch.where(m, a, fill)``
  (0 or 1): the same in-place update, a no-op where the mask is False (see
  :func:`masks.augmented_write` for a number or a name).

Offered only when ``f`` is made of arithmetic, numbers and elementwise methods (``sqrt``,
``exp``, ``abs``, ``clamp`` with number bounds, ``to``/``float`` casts, a trailing
``squeeze()`` of the one-dimensional selection, which changes no value), every tensor it reads
is read through the same mask, and ``x`` is a local name whose last binding made a new tensor
(``torch.full_like``, ``ones_like``, ``zeros``, ``clone``, arithmetic): rebinding it then
changes no other name's tensor.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes, last_name, number_expr, side_effect, template
from compilelint.fix.codemods.masks import looks_like_mask
from compilelint.fix.codemods.selection import subscript_selection
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

# elementwise tensor methods (one tensor in, the same shape out)
_METHODS = frozenset(
    {
        "abs", "neg", "exp", "expm1", "sigmoid", "tanh", "relu", "sin", "cos",
        "sqrt", "rsqrt", "log", "log2", "log10", "log1p", "reciprocal",
        "clamp", "clamp_min", "clamp_max", "clip", "pow", "square",
        "to", "float", "double", "half", "bfloat16", "type_as",
    }
)  # fmt: skip
# torch functions of that kind (tensor and number arguments)
_FUNCTIONS = frozenset(
    {
        "abs", "exp", "expm1", "sigmoid", "tanh", "sqrt", "rsqrt", "log", "log2", "log10",
        "log1p", "reciprocal", "clamp", "clip", "pow", "square", "maximum", "minimum",
    }
)  # fmt: skip
# what can turn a left-out element into inf/nan (its gradient then poisons torch.where's)
_PARTIAL = frozenset({"sqrt", "rsqrt", "log", "log2", "log10", "log1p", "reciprocal", "pow"})
_CASTS = frozenset({"to", "float", "double", "half", "bfloat16", "type_as"})
_FRESH = frozenset(
    {
        "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
        "empty_like", "clone", "where", "clamp", "tensor", "arange", "linspace",
    }
)  # fmt: skip
_AUG_FILL = {
    cst.AddAssign: "0",
    cst.SubtractAssign: "0",
    cst.MultiplyAssign: "1",
    cst.DivideAssign: "1",
}


class _Lower:
    """The value ``f`` with every read ``a[m]`` (mask text ``m``) replaced by ``a``; None when
    ``f`` is not elementwise over such reads."""

    def __init__(self, ctx: FixContext, m: str) -> None:
        self.ctx = ctx
        self.m = m
        self.partial = False
        self.reads: list[cst.BaseExpression] = []

    def __call__(self, e: cst.BaseExpression) -> cst.BaseExpression | None:
        ctx = self.ctx
        if number_expr(e) or (isinstance(e, (cst.Name, cst.Attribute)) and ctx.is_number(e)):
            return e
        if isinstance(e, cst.Subscript):
            s = subscript_selection(e)
            if s is None or ctx.code(s.m).strip() != self.m or side_effect(s.x) is not None:
                return None
            if isinstance(s.x, cst.Subscript) and subscript_selection(s.x) is not None:
                return None
            out = s.x.with_changes(lpar=list(e.lpar), rpar=list(e.rpar)) if e.lpar else s.x
            self.reads.append(out)
            return out
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            inner = self(e.expression)
            return None if inner is None else e.with_changes(expression=inner)
        if isinstance(e, cst.BinaryOperation):
            if isinstance(e.operator, cst.MatrixMultiply):
                return None
            if isinstance(e.operator, (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)):
                self.partial = True
            left, right = self(e.left), self(e.right)
            if left is None or right is None:
                return None
            return e.with_changes(left=left, right=right)
        if isinstance(e, cst.Call) and not any(a.star for a in e.args):
            f = e.func
            if not isinstance(f, cst.Attribute):
                return None
            name = f.attr.value
            if ctx.code(f.value).strip() == ctx.torch():
                if name not in _FUNCTIONS or any(a.keyword for a in e.args):
                    return None
                self.partial |= name in _PARTIAL
                args = [self(a.value) for a in e.args]
                if any(a is None for a in args):
                    return None
                return e.with_changes(
                    args=[a.with_changes(value=v) for a, v in zip(e.args, args, strict=True)]
                )
            if name == "squeeze" and not e.args:
                # the selection is one-dimensional: `squeeze()` makes a one-element
                # selection a 0-d tensor, which the write broadcasts the same
                recv = self(f.value)
                if recv is None:
                    return None
                return recv.with_changes(lpar=list(e.lpar), rpar=list(e.rpar)) if e.lpar else recv
            if name not in _METHODS:
                return None
            self.partial |= name in _PARTIAL
            recv = self(f.value)
            if recv is None:
                return None
            if name in _CASTS:
                if any(side_effect(a.value) is not None for a in e.args):
                    return None
                return e.with_changes(func=f.with_changes(value=recv))
            lowered: list[cst.Arg] = []
            for a in e.args:
                v = self(a.value)
                if v is None:
                    return None
                lowered.append(a.with_changes(value=v))
            return e.with_changes(func=f.with_changes(value=recv), args=lowered)
        return None


def _guarded(
    ctx: FixContext, low: _Lower, value: cst.BaseExpression, m: cst.BaseExpression
) -> cst.BaseExpression:
    """``value`` with each read a ``torch.where(m, a, 1)`` when ``f`` is partial."""
    if not low.partial:
        return value
    reads = {id(r) for r in low.reads}
    where = ctx.torch("where")

    class T(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            if id(original) in reads and isinstance(updated, cst.BaseExpression):
                return template(
                    f"{where}(__m__, __a__, 1)", m=m, a=updated.with_changes(lpar=[], rpar=[])
                )
            return updated

    return value.visit(T())  # type: ignore[return-value]


def _fresh_local(ctx: FixContext, stmt: cst.CSTNode, name: str) -> bool:
    """``name``'s last binding before ``stmt`` in its function made a new tensor, and no
    statement between reads ``name`` bare (an alias, a container, an argument)."""
    fn = ctx.function(stmt)
    if fn is None:
        return False
    params = {
        p.name.value
        for p in [*fn.params.params, *fn.params.posonly_params, *fn.params.kwonly_params]
    }
    if name in params:
        return False
    line = ctx.span(stmt)[0]
    last: cst.Assign | None = None
    for node in all_nodes(fn):
        if not isinstance(node, cst.Assign) or ctx.span(node)[0] >= line:
            continue
        for t in node.targets:
            if isinstance(t.target, cst.Name) and t.target.value == name:
                if last is None or ctx.span(node)[0] >= ctx.span(last)[0]:
                    last = node
    if last is None or len(last.targets) != 1:
        return False
    v = last.value
    if isinstance(v, cst.Call):
        if last_name(v.func) not in _FRESH:
            return False
    elif not isinstance(v, cst.BinaryOperation):
        return False
    start = ctx.span(last)[2]
    for node in all_nodes(fn):
        if isinstance(node, cst.Name) and node.value == name:
            at = ctx.span(node)[0]
            if start < at < line and not _read_in_place(ctx, node):
                return False
    return True


def _read_in_place(ctx: FixContext, node: cst.Name) -> bool:
    """``name.attr`` (``x.dtype``, ``x.shape``), ``name[...]``, or ``name`` in arithmetic:
    reads that keep no reference to the tensor."""
    p = ctx.parent(node)
    if isinstance(p, cst.Attribute) and p.value is node:
        return True
    if isinstance(p, cst.Subscript) and p.value is node:
        return True
    return isinstance(p, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison))


def masked_write(ctx: FixContext, read: cst.Subscript) -> Rewrite | None:
    """The rewrite of the write through ``m`` that holds ``read`` (its target ``x[m]`` or a
    read ``a[m]`` of its value); None when it is not in such a write, or the write is not of
    the shape above."""
    stmt: cst.Assign | cst.AugAssign | None = None
    for a in ctx.ancestors(read):
        if isinstance(a, (cst.Assign, cst.AugAssign)):
            stmt = a
            break
        if isinstance(a, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Lambda)):
            return None
    if stmt is None:
        return None
    if isinstance(stmt, cst.AugAssign):
        return _augmented(ctx, stmt)
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Subscript):
        return None
    target = stmt.targets[0].target
    tsel = subscript_selection(target)
    if tsel is None or not isinstance(tsel.x, cst.Name) or side_effect(tsel.m) is not None:
        return None
    m = ctx.code(tsel.m).strip()
    if number_expr(stmt.value) and looks_like_mask(ctx, target, tsel.m):
        return _filled(ctx, stmt, tsel.x, tsel.m)
    low = _Lower(ctx, m)
    value = low(stmt.value)
    if value is None or not low.reads:
        return None
    if not _fresh_local(ctx, stmt, tsel.x.value):
        return None
    value = _guarded(ctx, low, value.with_changes(lpar=[], rpar=[]), tsel.m)
    new = cst.Assign(
        targets=[cst.AssignTarget(target=tsel.x)],
        value=template(f"{ctx.torch('where')}(__m__, __v__, __x__)", m=tsel.m, v=value, x=tsel.x),
    )
    how = "its reads made safe where the mask is False, " if low.partial else ""
    return Rewrite(
        title="write through the mask with `torch.where(mask, f(a, ...), x)`: the value computed "
        f"on the whole tensors ({how}the same elements where the mask holds), no selection",
        changes=[(stmt, new)],
        imports=("torch",),
    )


def _filled(
    ctx: FixContext, stmt: cst.Assign, x: cst.BaseExpression, m: cst.BaseExpression
) -> Rewrite:
    """``x[m] = number`` -> ``x.masked_fill_(m, number)`` with the mask shaped over ``x``'s
    leading dims (a row mask fills whole rows, as the write does): the same in-place write,
    without reading the mask's values into an index (a 0-d ``x`` breaks there)."""
    shaped = template("__m__.reshape(__m__.shape + (1,) * (__x__.dim() - __m__.dim()))", m=m, x=x)
    new = cst.Expr(
        value=cst.Call(
            func=cst.Attribute(value=x, attr=cst.Name("masked_fill_")),
            args=[cst.Arg(shaped), cst.Arg(stmt.value)],
        )
    )
    return Rewrite(
        title="fill through the mask in place (`x.masked_fill_(mask, v)`) instead of writing "
        "through an index",
        changes=[(stmt, new)],
    )


def _augmented(ctx: FixContext, stmt: cst.AugAssign) -> Rewrite | None:
    fill = _AUG_FILL.get(type(stmt.operator))
    value = stmt.value
    if fill is None or not isinstance(stmt.target, cst.Subscript):
        return None
    if not isinstance(value, cst.Subscript):
        return None
    tsel = subscript_selection(stmt.target)
    rs = subscript_selection(value)
    if tsel is None or rs is None or ctx.code(tsel.m).strip() != ctx.code(rs.m).strip():
        return None
    if (
        side_effect(tsel.x) is not None
        or side_effect(rs.x) is not None
        or side_effect(tsel.m) is not None
    ):
        return None
    if isinstance(rs.x, cst.Subscript) and subscript_selection(rs.x) is not None:
        return None
    new = stmt.with_changes(
        target=tsel.x,
        value=template(f"{ctx.torch('where')}(__m__, __v__, {fill})", m=tsel.m, v=rs.x),
    )
    return Rewrite(
        title=f"update in place through `torch.where(mask, a, {fill})` instead of reading "
        "through the mask",
        changes=[(stmt, new)],
        imports=("torch",),
    )
