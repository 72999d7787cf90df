"""A trim to a data-dependent length whose trimmed positions could only reach sums: mask at the
sums instead of cutting (CL113's applied case beyond ``x[:, :n].sum(1)``).

::

    max_len = int(lengths.max())
    enc = enc[:, :max_len]
    logp = self.proj(enc).log_softmax(-1)
    return logp.sum(dim=1)

becomes::

    max_len = torch.trunc(lengths.max())
    keep = torch.arange(enc.shape[1], device=enc.device) < torch.where(max_len < 0, ...)
    logp = self.proj(enc).log_softmax(-1)
    return torch.where(keep, logp.movedim(1, -1), 0).sum(-1)

Sound when every value computed from the trimmed tensors is *position-wise* along the cut
dimension (each position of the result depends only on the same position of its inputs) until
it is summed over that dimension: then the positions before the bound hold the same values with
or without the cut, and the sum only sees those. Position-wise here: arithmetic with numbers,
with other such values, or with tensors that broadcast along the dimension; elementwise methods
and functions (``float``, ``exp``, ``tanh``, ``torch.relu``, ``F.gelu``, ...); ``unsqueeze(-1)``;
``softmax``/``log_softmax``/``layer_norm`` over the last dimension; calls of ``self.<m>`` where
every module the class assigns to ``m`` is ``nn.Linear``, ``nn.Embedding``, ``nn.LayerNorm`` or
an activation (they act on the last dimension, or on each index). An operation over the last
dimension (``softmax(-1)``, ``nn.LayerNorm``) is accepted only once the cut dimension is
certainly not the last one: after ``nn.Embedding`` or ``unsqueeze(-1)`` added a dimension, or
``nn.Linear`` read the last one (a two-dimensional input cut along its last dimension would have
given ``nn.Linear`` a data-dependent width, which the original could only run by coincidence;
the rewrite then fails loudly, with a shape error). A negative bound counts from the end as
slicing does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    all_nodes,
    bound_names,
    name_nodes,
    number_expr,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.static.analysis.walker import self_attr

_ELEMENTWISE = frozenset(
    """float half double bfloat16 abs exp log log1p sqrt rsqrt tanh sigmoid relu gelu silu
    neg reciprocal square clamp clamp_min clamp_max nan_to_num pow""".split()
)
_LAST_DIM = frozenset({"softmax", "log_softmax", "layer_norm", "normalize"})
_POSITIONWISE_MODULES = frozenset(
    """Linear Embedding LayerNorm RMSNorm ReLU GELU Tanh Sigmoid SiLU Mish Identity
    Softmax LogSoftmax""".split()
)
_FUNCS = frozenset({"torch", "F", "functional", "nn.functional", "torch.nn.functional"})


@dataclass
class Cut:
    """One trim of a tensor to data-dependent bounds: ``x[:, lo:hi]`` (``node`` the subscript)
    or ``x.narrow(d, start, length)`` (``node`` the call; ``lower`` the start literal, ``upper``
    the start plus the length); a bound None is the end of the dimension."""

    node: cst.BaseExpression
    x: cst.BaseExpression
    dim: int
    lower: cst.BaseExpression | None
    upper: cst.BaseExpression | None


def slice_cut(ctx: FixContext, s: cst.Slice) -> Cut | NoFix:
    """The cut of ``x[:, ..., lo:hi]`` (full slices before the bound, none after)."""
    el = ctx.parent(s)
    sub = ctx.parent(el) if el is not None else None
    if not isinstance(sub, cst.Subscript) or not isinstance(el, cst.SubscriptElement):
        return NoFix("the slice is not an index of a tensor")
    k = list(sub.slice).index(el)
    if any(not _full(e) for e in sub.slice[:k]) or len(sub.slice) != k + 1 or s.step is not None:
        what = ctx.code(sub).strip()[:40]
        return NoFix(
            f"the trim `{what}` is not `x[:, ..., lo:hi]` (full slices before the bound only)"
        )
    return Cut(sub, sub.value, k, s.lower, s.upper)


def narrow_cut(call: cst.Call) -> Cut | NoFix:
    """The cut of ``x.narrow(d, start, length)`` (``d`` and ``start`` non-negative int
    literals: the original raises unless ``0 <= length <= size - start``)."""
    f = call.func
    args = [a.value for a in call.args]
    if (
        not isinstance(f, cst.Attribute)
        or f.attr.value != "narrow"
        or len(args) != 3
        or any(a.keyword is not None or a.star for a in call.args)
        or not isinstance(args[0], cst.Integer)
        or not isinstance(args[1], cst.Integer)
    ):
        return NoFix("the trim is not `x.narrow(d, start, length)` with literal `d` and `start`")
    start = int(args[1].value, 0)
    upper = (
        args[2] if start == 0 else cst.BinaryOperation(args[2], cst.Add(), cst.Integer(str(start)))
    )
    return Cut(call, f.value, int(args[0].value, 0), args[1] if start else None, upper)


def masked_sums(
    ctx: FixContext,
    fn: cst.FunctionDef,
    name: str,
    slices: list[cst.Slice],
    call: cst.Call | None,
    value: cst.BaseExpression | None,
) -> Rewrite | NoFix:
    """The rewrite of ``name = int(value)`` (or ``value.item()``; ``call`` None: ``name`` is
    already a tensor) whose every read is the upper bound of a trim ``y = x[:, :name]``, or
    why it does not hold."""
    cuts: list[Cut] = []
    for s in slices:
        got = slice_cut(ctx, s)
        if isinstance(got, NoFix):
            return got
        cuts.append(got)
    reads = [(call, value)] if call is not None and value is not None else []
    return masked_cuts(ctx, fn, cuts, reads, cst.Name(name))


def _bound_of(call: cst.Call, value: cst.BaseExpression, th: str) -> cst.BaseExpression | NoFix:
    f = call.func
    if isinstance(f, cst.Name) and f.value == "int":
        return template(f"{th}.trunc(__e__)", e=value)
    if isinstance(f, cst.Attribute) and f.attr.value == "item":
        return value
    return NoFix("the bound is not read with `int()` or `.item()`")


def masked_cuts(
    ctx: FixContext,
    fn: cst.FunctionDef,
    cuts: list[Cut],
    reads: list[tuple[cst.Call, cst.BaseExpression]],
    anchor: cst.BaseExpression,
) -> Rewrite | NoFix:
    """Trims ``y = x[:, lo:hi]`` / ``y = x.narrow(d, s, n)`` (same dimension, same bounds)
    whose values reach only position-wise operations and sums or means over the cut
    dimension: the full length is kept and the positions outside the bounds are masked at
    the reductions (a mean divides by the number of kept positions). ``reads``: the
    ``int(e)``/``e.item()`` conversions of the bounds, which become 0-d tensors; ``anchor``:
    a bound expression for the messages."""
    th = ctx.torch()
    changes: list[
        tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]]
    ] = []
    for call, value in reads:
        bound = _bound_of(call, value, th)
        if isinstance(bound, NoFix):
            return bound
        changes.append((call, bound))
    first: tuple[cst.SimpleStatementLine, cst.BaseExpression, bool] | None = None
    dim: int | None = None
    key: tuple[str, str] | None = None
    # (name, the line from which it holds a full-length value)
    tracked: list[tuple[str, cst.SimpleStatementLine, bool]] = []
    for cut in cuts:
        sub = cut.node
        if dim is not None and cut.dim != dim:
            return NoFix("the trims cut different dimensions")
        dim = cut.dim
        bounds = tuple(ctx.code(b).strip() if b is not None else "" for b in (cut.lower, cut.upper))
        if key is not None and bounds != key:
            return NoFix("the trims have different bounds")
        key = bounds  # type: ignore[assignment]
        assign = ctx.parent(sub)
        line = ctx.statement(sub)
        if (
            not isinstance(assign, cst.Assign)
            or assign.value is not sub
            or len(assign.targets) != 1
            or not isinstance(assign.targets[0].target, cst.Name)
            or not isinstance(cut.x, (cst.Name, cst.Attribute))
            or not isinstance(line, cst.SimpleStatementLine)
            or len(line.body) != 1
        ):
            return NoFix("the trimmed tensor is not bound to a name on its own line")
        target = assign.targets[0].target.value
        same = isinstance(cut.x, cst.Name) and target == cut.x.value
        if first is None:
            first = (line, cut.x, same)
        elif same:
            changes.append((line, cst.RemovalSentinel.REMOVE))
        else:
            changes.append((sub, cut.x))
        # False: the cut dimension may be the last one (a 2-d `x[:, :n]`), so an operation
        # over the last dimension would mix the cut positions in
        tracked.append((target, line, False))
    assert dim is not None and first is not None
    reds: list[tuple[str, cst.Call]] = []
    seen: set[int] = set()
    queue = list(tracked)
    visited: set[tuple[str, int, bool]] = set()
    while queue:
        nm, line, notlast = queue.pop()
        k = (nm, id(line), notlast)
        if k in visited:
            continue
        visited.add(k)
        for use in _reads_after(ctx, fn, nm, line):
            got = _climb(ctx, use, dim, notlast)
            if isinstance(got, NoFix):
                return got
            kind, node, after = got
            if kind in ("sum", "mean"):
                assert isinstance(node, cst.Call)
                if id(node) not in seen:
                    seen.add(id(node))
                    reds.append((kind, node))
                continue
            assert isinstance(node, cst.Assign)
            stmt = ctx.statement(node)
            tgt = node.targets[0].target
            if not isinstance(stmt, cst.SimpleStatementLine) or not isinstance(tgt, cst.Name):
                return NoFix(
                    "a value computed from the trimmed tensor is bound to more than a name"
                )
            queue.append((tgt.value, stmt, after))
    if not reds:
        return NoFix("the trimmed tensor never reaches a sum over the cut dimension")
    for _, red in reds:
        if any(a.keyword is not None and a.keyword.value == "keepdim" for a in red.args):
            return NoFix("a sum over the cut dimension keeps it (`keepdim=`)")
    # the positions inside the bounds, once, where the first trim was (the length along the
    # cut dimension is the same for every value computed from the trimmed tensors)
    line0, x0, same0 = first
    cut0 = cuts[0]
    keep = ctx.fresh_name("keep")
    tests: list[str] = []
    parts: dict[str, cst.BaseExpression] = {"x": x0}
    for i, (b, op) in enumerate(((cut0.lower, ">="), (cut0.upper, "<"))):
        if b is None:
            continue
        if isinstance(b, cst.Integer):
            tests.append(f"(__ar__ {op} {b.value})")
            continue
        parts[f"b{i}"] = _atom(b)
        tests.append(
            f"(__ar__ {op} {th}.where(__b{i}__ < 0, __b{i}__ + __x__.shape[{dim}], __b{i}__))"
        )
    if not tests:
        return NoFix("the trim has no data-dependent bound")
    expr = " & ".join(tests).replace(
        "__ar__", f"{th}.arange(__x__.shape[{dim}], device=__x__.device)"
    )
    if len(tests) == 1:
        expr = expr[1:-1]
    mask_line = cst.SimpleStatementLine(
        body=[cst.Assign([cst.AssignTarget(cst.Name(keep))], template(expr, **parts))],
        leading_lines=line0.leading_lines,
        trailing_whitespace=line0.trailing_whitespace if same0 else cst.TrailingWhitespace(),
    )
    rest0 = (
        []
        if same0
        else [
            line0.deep_replace(cast(cst.Assign, line0.body[0]).value, x0).with_changes(
                leading_lines=[]
            )
        ]
    )
    changes.append((line0, cst.FlattenSentinel([mask_line, *rest0])))
    for kind, red in reds:
        recv = red.func.value  # type: ignore[attr-defined]
        moved = template(f"{th}.where({keep}, __x__.movedim({dim}, -1), 0)", x=_atom(recv))
        summed = red.with_changes(
            func=cst.Attribute(value=moved, attr=cst.Name("sum")),
            args=[cst.Arg(cst.UnaryOperation(cst.Minus(), cst.Integer("1")))],
        )
        if kind == "mean":
            changes.append((red, template(f"(__s__ / {keep}.sum())", s=summed)))
        else:
            changes.append((red, summed))
    means = any(k == "mean" for k, _ in reds)
    return Rewrite(
        title="keep the full length and mask the positions outside the bounds where the values "
        "are summed (`torch.where(keep, y.movedim(d, -1), 0).sum(-1)`"
        + (", a mean divided by `keep.sum()`" if means else "")
        + "): everything between acts on each position alone, so the results are the same and "
        "the shape stays static",
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _atom(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _full(e: cst.SubscriptElement) -> bool:
    return (
        isinstance(e.slice, cst.Slice)
        and e.slice.lower is None
        and e.slice.upper is None
        and e.slice.step is None
    )


def _reads_after(
    ctx: FixContext, fn: cst.FunctionDef, name: str, line: cst.SimpleStatementLine
) -> list[cst.Name]:
    """Reads of ``name`` after ``line`` (which binds it) and before it is bound again."""
    start = ctx.span(line)[2]
    later = [ctx.span(b)[0] for b in bound_names(fn.body).get(name, []) if ctx.span(b)[0] > start]
    stop = min(later) if later else 1 << 30
    return [r for r in name_nodes(fn.body, name, reads_only=True) if start < ctx.span(r)[0] <= stop]


def _climb(
    ctx: FixContext, node: cst.BaseExpression, dim: int, notlast: bool
) -> tuple[str, cst.CSTNode, bool] | NoFix:
    """Follow a full-length value up through position-wise operations: ("sum", the ``.sum``
    call over ``dim``) or ("assign", the ``name = ...`` that binds the result), with whether
    the cut dimension is then certainly not the last one (``notlast``: after ``nn.Embedding``
    or ``unsqueeze(-1)`` added a dimension, or ``nn.Linear`` read the last one; operations
    over the last dimension need it)."""
    cur: cst.CSTNode = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
            other = p.right if p.left is cur else p.left
            if not (number_expr(other) or ctx.is_tensor(other) or ctx.is_number(other)):
                return NoFix(f"`{ctx.code(other).strip()[:40]}` is not known to be a tensor")
            cur = p
            continue
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
            cur = p
            continue
        if isinstance(p, cst.Attribute) and p.value is cur:
            call = ctx.parent(p)
            if not isinstance(call, cst.Call) or call.func is not p:
                return _stop(ctx, p)
            meth = p.attr.value
            if meth in ("sum", "mean") and _reduced_dim(call) == dim:
                return meth, call, notlast
            if meth in _ELEMENTWISE:
                cur = call
                continue
            if meth == "unsqueeze" and _int_args(call) == [-1]:
                notlast = True
                cur = call
                continue
            if meth in _LAST_DIM and _last_dim(call) and notlast:
                cur = call
                continue
            return _stop(ctx, call)
        if isinstance(p, cst.Arg) and p.value is cur and p.keyword is None:
            call = ctx.parent(p)
            if not isinstance(call, cst.Call) or call.args[0] is not p:
                return _stop(ctx, p)
            how = _positionwise_call(ctx, call)
            if how == "widen" or how == "elementwise" or (how == "last" and notlast):
                notlast = notlast or how == "widen"
                cur = call
                continue
            return _stop(ctx, call)
        if isinstance(p, cst.Assign) and p.value is cur and len(p.targets) == 1:
            return "assign", p, notlast
        return _stop(ctx, p or cur)


def _stop(ctx: FixContext, n: cst.CSTNode) -> NoFix:
    stmt = ctx.statement(n)
    what = ctx.code(stmt).strip().splitlines()[0][:50] if stmt is not None else "?"
    return NoFix(
        f"the trimmed values reach `{what}`, not only position-wise operations and sums over "
        "the cut dimension"
    )


def _int_args(call: cst.Call) -> list[int] | None:
    out: list[int] = []
    for a in call.args:
        v = a.value
        neg = isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus)
        if neg:
            v = v.expression  # type: ignore[attr-defined]
        if not isinstance(v, cst.Integer):
            return None
        out.append(-int(v.value) if neg else int(v.value))
    return out


def _last_dim(call: cst.Call) -> bool:
    """``softmax(-1)`` / ``softmax(dim=-1)`` (the first positional or ``dim``)."""
    for i, a in enumerate(call.args):
        if (a.keyword is None and i == 0) or (a.keyword is not None and a.keyword.value == "dim"):
            got = _int_args(cst.Call(func=cst.Name("f"), args=[a.with_changes(keyword=None)]))
            return got == [-1]
    return False


def _reduced_dim(call: cst.Call) -> int | None:
    dims = [
        a.value
        for i, a in enumerate(call.args)
        if (a.keyword is None and i == 0) or (a.keyword is not None and a.keyword.value == "dim")
    ]
    if len(dims) != 1 or not isinstance(dims[0], cst.Integer):
        return None
    if any(a.star or (a.keyword and a.keyword.value not in ("dim", "keepdim")) for a in call.args):
        return None
    return int(dims[0].value, 0)


def _positionwise_call(ctx: FixContext, call: cst.Call) -> str:
    """How ``call`` of ``x`` (its first argument) acts along the other dimensions:
    "elementwise" (``torch.tanh(x)``, ``F.gelu(x)``, an activation module), "last" (over the
    last dimension: ``F.softmax(x, dim=-1)``, ``nn.LayerNorm``), "widen" (``nn.Embedding``
    adds a dimension; ``nn.Linear`` reads the last one, which a 2-d trim along it would have
    given a data-dependent width), or "" (none of those)."""
    f = call.func
    if isinstance(f, cst.Attribute):
        owner = ctx.code(f.value).strip()
        name = f.attr.value
        if owner in _FUNCS or owner == ctx.torch():
            if name in _ELEMENTWISE and len(call.args) == 1:
                return "elementwise"
            if name in _LAST_DIM and _last_dim(cst.Call(func=f, args=call.args[1:])):
                return "last"
            return ""
        attr = self_attr(f)
        if attr is not None and len(call.args) == 1:
            return _positionwise_module(ctx, call, attr)
    return ""


def _positionwise_module(ctx: FixContext, node: cst.CSTNode, attr: str) -> str:
    klass = ctx.enclosing(node, cst.ClassDef)
    if klass is None:
        return ""
    built: list[str] = []
    for n in all_nodes(klass):
        if isinstance(n, cst.AssignTarget) and self_attr(n.target) == attr:
            a = ctx.parent(n)
            v = a.value if isinstance(a, cst.Assign) else None
            if not isinstance(v, cst.Call):
                return ""
            f = v.func
            last = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
            built.append(last)
    if not built or not all(b in _POSITIONWISE_MODULES for b in built):
        return ""
    if all(b in ("Linear", "Embedding") for b in built):
        return "widen"
    if any(b in ("LayerNorm", "RMSNorm", "Softmax", "LogSoftmax") for b in built):
        return "last"
    return "elementwise"
