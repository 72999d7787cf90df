"""Per-class scores over the classes present in a target (CL110's ``torch.unique`` loops).

A Dice or IoU loss averaged over the classes the target holds::

    losses = []
    for c in torch.unique(target):
        p = probs[:, c]
        g = (target == c).float()
        ...
        losses.append(1 - dice)
    return torch.stack(losses).mean()

``torch.unique`` gives as many classes as the data holds (a data-dependent shape: the graph
breaks). Every class the loop can see indexes ``probs[:, c]``, so it is below
``probs.shape[1]``: the loop runs over all of them, with ``present`` recording which the target
holds, and the mean is taken over the present ones::

    losses = []
    present = []
    for c in range(probs.shape[1]):
        ...
        losses.append(1 - dice)
        present.append((target == c).any())
    return torch.where(torch.stack(present), torch.stack(losses), 0).sum() / torch.stack(present).sum()

The same classes contribute the same values in the same order; the loop also computes the
scores of absent classes (masked out, so they must not fail). Applied only when the class count
is known from such an index (``X[:, c]`` of a tensor ``X``: the size of that dimension), the
loop body is simple statements that do not leave the loop, every list the loop appends to is
``[]`` just before it and read after it only as ``torch.stack(L).mean()`` or ``.sum()`` of
0-d scores, and ``c`` is used only as an index, in comparisons or arithmetic. A negative class
(``-1`` for "ignore") indexes from the end in the original and is left out of the rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from compilelint.fix.codemods import loops, masks
from compilelint.fix.codemods.base import (
    all_nodes,
    bound_names,
    leading_lines,
    name_nodes,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.static.analysis.walker import self_attr


def unique_loop(ctx: FixContext, call: cst.Call) -> Rewrite | Proposal | NoFix | None:
    """:func:`_unique_loop_lists` where its conditions hold, else :func:`unique_iter_loop`
    (any body, exits on tensors masked); the first one's reason when neither rewrites."""
    first = _unique_loop_lists(ctx, call)
    if first is None:
        return unique_iter_loop(ctx, call)
    if isinstance(first, NoFix):
        general = unique_iter_loop(ctx, call)
        if general is not None and not isinstance(general, NoFix):
            return general
        if general is not None:
            return NoFix(f"{first.reason}; with masks: {general.reason}")
    return first


def _unique_loop_lists(ctx: FixContext, call: cst.Call) -> Rewrite | NoFix | None:
    """The rewrite of ``for c in torch.unique(t): ...`` (``t.unique()`` too), or None when
    ``call`` is not such a loop's iterable."""
    loop = ctx.parent(call)
    if not isinstance(loop, cst.For) or loop.iter is not call:
        return None
    target = _unique_of(ctx, call)
    if target is None:
        return NoFix("`unique` is called with options other than `sorted=True`")
    if not isinstance(loop.target, cst.Name):
        return NoFix("the loop over `unique` unpacks its classes")
    c = loop.target.value
    if loop.orelse is not None:
        return NoFix("the loop over `unique` has an `else`")
    body = loop.body
    if not isinstance(body, cst.IndentedBlock) or not all(
        isinstance(s, cst.SimpleStatementLine) for s in body.body
    ):
        return NoFix("the loop over `unique` holds compound statements")
    fn = ctx.function(loop)
    block = ctx.parent(loop)
    if fn is None or not isinstance(block, cst.IndentedBlock):
        return NoFix("the loop is not in a function body")
    lists: list[str] = []
    for line in body.body:
        for small in line.body:  # type: ignore[attr-defined]
            if isinstance(small, (cst.Break, cst.Continue, cst.Return, cst.Raise)):
                return NoFix("the loop over `unique` leaves early")
            appended = _appended(small)
            if appended is not None and appended not in lists:
                lists.append(appended)
    if not lists:
        return NoFix("the loop over `unique` appends its per-class values to no list")
    size = _class_count(ctx, loop, c)
    if size is None:
        return NoFix(
            "the class count is not known: no tensor is indexed by the class (`probs[:, c]`) "
            "whose size would bound it; loop over `range(num_classes)` with a presence mask "
            "`(target == c).any()` and take the mean over the present classes"
        )
    for use in name_nodes(body, c, reads_only=True):
        p = ctx.parent(use)
        if isinstance(p, cst.Attribute) and p.value is use:
            return NoFix(f"the class `{c}` is used as a tensor (`{ctx.code(p).strip()}`)")
    stmts = list(block.body)
    i = stmts.index(loop)
    bound = bound_names(fn.body)
    reductions: list[tuple[cst.Call, str]] = []
    for name in lists:
        if len(bound.get(name, [])) != 1 or not _empty_list_before(stmts[:i], name):
            return NoFix(f"`{name}` is not a new list (`{name} = []`) just before the loop")
        for use in name_nodes(fn.body, name, reads_only=True):
            if any(a is loop for a in ctx.ancestors(use)):
                if _appended_at(ctx, use):
                    continue
                return NoFix(f"`{name}` is read inside the loop")
            red = _reduction(ctx, use)
            if red is None:
                stmt = ctx.statement(use)
                what = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
                return NoFix(
                    f"`{name}` is used in `{what[:50]}`, not only as `torch.stack({name}).mean()`"
                    " or `.sum()`"
                )
            reductions.append(red)
    t = ctx.torch()
    present = ctx.fresh_name("present")
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] = []
    new_body = [
        *body.body,
        cst.SimpleStatementLine(
            body=[
                cst.Expr(
                    template(
                        f"{present}.append((__t__ == {c}).any())",
                        t=target.with_changes(lpar=[], rpar=[]),
                    )
                )
            ]
        ),
    ]
    new_loop = loop.with_changes(
        iter=template(f"range({size})"),
        body=body.with_changes(body=new_body),
        leading_lines=[],
    )
    init = cst.SimpleStatementLine(
        body=[cst.Assign([cst.AssignTarget(cst.Name(present))], cst.List([]))],
        leading_lines=loop.leading_lines,
    )
    changes.append((loop, cst.FlattenSentinel([init, new_loop])))
    for rcall, how in reductions:
        stacked = rcall.func.value  # type: ignore[attr-defined, union-attr]
        keep = template(f"{t}.stack({present})")
        kept = template(f"{t}.where(__p__, __s__, 0).sum()", p=keep, s=stacked)
        new = kept if how == "sum" else template(f"__k__ / {t}.stack({present}).sum()", k=kept)
        changes.append((rcall, _paren_for(ctx, rcall, new)))
    return Rewrite(
        title="loop over every class (the size of the dimension the class indexes) with a "
        "presence mask, and reduce over the present classes only: `torch.unique` gave as "
        "many classes as the data held",
        changes=changes,
        imports=("torch",),
    )


def _unique_of(ctx: FixContext, call: cst.Call) -> cst.BaseExpression | None:
    """``t`` of ``torch.unique(t)`` / ``t.unique()`` (``sorted=True`` allowed)."""
    f = call.func
    if not isinstance(f, cst.Attribute) or f.attr.value != "unique":
        return None
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args):
        return None
    if any(k != "sorted" or ctx.code(v).strip() != "True" for k, v in kws.items()):
        return None
    if ctx.code(f.value).strip() == ctx.torch():
        return pos[0] if len(pos) == 1 else None
    return f.value if not pos else None


def _appended(small: cst.BaseSmallStatement) -> str | None:
    """``L`` of a statement ``L.append(v)``."""
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return None
    f = small.value.func
    if (
        isinstance(f, cst.Attribute)
        and f.attr.value == "append"
        and isinstance(f.value, cst.Name)
        and len(small.value.args) == 1
    ):
        return f.value.value
    return None


def _appended_at(ctx: FixContext, use: cst.Name) -> bool:
    p = ctx.parent(use)
    call = ctx.parent(p) if isinstance(p, cst.Attribute) else None
    expr = ctx.parent(call) if isinstance(call, cst.Call) else None
    return isinstance(expr, cst.Expr) and _appended(expr) == use.value


def _class_count(ctx: FixContext, loop: cst.For, c: str) -> str | None:
    """``X.shape[k]`` of an index ``X[:, ..., c]`` in the loop body (``X`` a tensor named
    outside the loop, ``c`` at position ``k`` after full slices)."""
    inner = bound_names(loop.body)
    for use in name_nodes(loop.body, c, reads_only=True):
        idx = ctx.parent(use)
        el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
        sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
        if not isinstance(sub, cst.Subscript) or not isinstance(
            sub.value, (cst.Name, cst.Attribute)
        ):
            continue
        base = ctx.code(sub.value).strip()
        if isinstance(sub.value, cst.Attribute) and self_attr(sub.value) is None:
            continue
        if base in inner or not ctx.is_tensor(sub.value):
            continue
        k = next(j for j, e in enumerate(sub.slice) if e is el)
        full = all(
            isinstance(e.slice, cst.Slice)
            and e.slice.lower is None
            and e.slice.upper is None
            and e.slice.step is None
            for e in sub.slice[:k]
        )
        if full:
            return f"{base}.shape[{k}]"
    return None


def _empty_list_before(stmts: list[cst.BaseStatement], name: str) -> bool:
    for st in reversed(stmts):
        if not isinstance(st, cst.SimpleStatementLine):
            return False
        for small in st.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == name
            ):
                return isinstance(small.value, cst.List) and not small.value.elements
    return False


def _reduction(ctx: FixContext, use: cst.Name) -> tuple[cst.Call, str] | None:
    """``torch.stack(L).mean()`` / ``.sum()`` around the read ``use`` of ``L``."""
    arg = ctx.parent(use)
    stack = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if (
        not isinstance(stack, cst.Call)
        or len(stack.args) != 1
        or not isinstance(stack.func, cst.Attribute)
        or stack.func.attr.value != "stack"
        or ctx.code(stack.func.value).strip() != ctx.torch()
    ):
        return None
    return _method_reduction(ctx, stack)


# elementwise methods (and torch functions) a per-class score may go through
_ELEMENTWISE = frozenset(
    {
        "clamp",
        "clamp_min",
        "clamp_max",
        "abs",
        "exp",
        "log",
        "log1p",
        "sqrt",
        "float",
        "double",
        "sigmoid",
        "reciprocal",
        "neg",
    }
)


def unique_index(ctx: FixContext, call: cst.Call) -> Rewrite | NoFix | None:
    """``classes = t.unique()`` whose every use indexes a tensor (``inter[classes]``) inside
    one elementwise expression bound to a name reduced by ``.mean()``/``.sum()``::

        classes = labels.unique()
        iou = inter[classes] / union[classes].clamp(min=1e-6)
        return iou.mean()

    -> the presence of each class as a mask, the scores of all classes, the mean over the
    present ones::

        present = torch.isin(torch.arange(inter.shape[0], device=labels.device), labels)
        iou = inter / union.clamp(min=1e-6)
        return torch.where(present, iou, 0).sum() / present.sum()

    ``unique`` is sorted, so ``x[classes]`` holds the entries of the present classes in the
    order the mask keeps them. The mask reads the size of a scored tensor: it replaces the
    ``unique`` line when one is bound there already (and not again), else it goes just before
    the statement of the first use (the ``unique`` line goes), unless the scores are bound
    again from there or the target between the two lines (no fix: never a name read before
    it is bound). None when ``call`` is not bound to a name."""
    assign = ctx.parent(call)
    if (
        not isinstance(assign, cst.Assign)
        or assign.value is not call
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    target = _unique_of(ctx, call)
    if target is None:
        return NoFix("`unique` is called with options other than `sorted=True`")
    name = assign.targets[0].target.value
    fn = ctx.function(assign)
    if fn is None:
        return NoFix("the classes are not computed in a function")
    bound = bound_names(fn.body)
    if len(bound.get(name, [])) != 1:
        return NoFix(f"`{name}` is bound more than once")
    line = ctx.span(assign)[0]
    sels: list[cst.Subscript] = []
    scores: dict[int, cst.Assign] = {}
    direct: dict[int, tuple[cst.Call, str]] = {}  # x[classes] reduced in the same expression
    counts: list[cst.BaseExpression] = []
    for use in name_nodes(fn.body, name, reads_only=True):
        if ctx.span(use)[0] <= line:
            return NoFix(f"`{name}` is read before it is computed")
        sub = _index_sub(ctx, use)
        cnt = masks.count_use(ctx, use) if sub is None else None
        if cnt is not None and masks.count_change(ctx, cnt, use) is not None:
            counts.append(cnt)  # len(classes): the number of classes present
            continue
        if sub is None:
            stmt = ctx.statement(use)
            what = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
            return NoFix(
                f"`{name}` is used in `{what[:50]}`, not only to index per-class scores "
                f"(`x[{name}]`)"
            )
        score = _elementwise_assign(ctx, sub)
        if score is None:
            at_once = _elementwise_reduction(ctx, sub)
            if at_once is None:
                return NoFix(
                    f"`{ctx.code(sub).strip()}` is not part of an elementwise expression bound "
                    "to a name nor reduced at once (`.mean()`, `.sum()`)"
                )
            sels.append(sub)
            direct[id(at_once[0])] = at_once
            continue
        sels.append(sub)
        scores[id(score)] = score
    if not sels:
        return NoFix(f"`{name}` is never used")
    reds: list[tuple[cst.Call, str]] = []
    for score in scores.values():
        sname = score.targets[0].target.value  # type: ignore[attr-defined]
        if len(bound.get(sname, [])) != 1:
            return NoFix(f"`{sname}` is bound more than once")
        for use in name_nodes(fn.body, sname, reads_only=True):
            red = _method_reduction(ctx, use)
            if red is None:
                stmt = ctx.statement(use)
                what = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else sname
                return NoFix(
                    f"`{sname}` is used in `{what[:50]}`, not only reduced by `.mean()`/`.sum()`"
                )
            reds.append(red)
    t = ctx.torch()
    present = ctx.fresh_name(f"{name}_present")

    def rebound(n: str, after: int, before: float = float("inf")) -> bool:
        return any(after < ctx.span(b)[0] < before for b in bound.get(n, []))

    # the mask reads the size of a scored tensor: at the `unique` line when one is bound
    # there already (as it is at its selection), else just before the first use
    fixed = [s for s in sels if not rebound(s.value.value, line - 1)]  # type: ignore[attr-defined]
    first = (fixed or sels)[0].value
    mask = template(
        f"{t}.isin({t}.arange(__x__.shape[0], device=__t__.device), __t__)",
        x=first,
        t=target.with_changes(lpar=[], rpar=[]),
    )
    new_assign = cst.Assign([cst.AssignTarget(cst.Name(present))], mask)
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel]]
    before: cst.BaseStatement | None = None
    if fixed:
        changes = [(assign, new_assign)]
    else:
        first_use = _first_use_statement(ctx, assign, [*sels, *counts])
        if isinstance(first_use, str):
            return NoFix(first_use)
        before = first_use
        at = ctx.span(before)[0]
        scored = first.value  # type: ignore[attr-defined]
        if rebound(scored, at - 1):
            return NoFix(
                f"`{scored}` is bound again where `{name}` is used: no line reads its size "
                f"before every use of `{name}`"
            )
        moved = sorted({n.value for n in all_nodes(target) if isinstance(n, cst.Name)})
        if any(rebound(n, line, at) for n in moved):
            return NoFix(
                f"the presence mask must follow `{scored}` (bound after `{name}`), and "
                f"`{ctx.code(target).strip()}` is bound again in between: it would read "
                "other classes"
            )
        stmt = ctx.statement(assign)
        assert isinstance(stmt, cst.SimpleStatementLine)
        changes = [
            (stmt, cst.RemovalSentinel.REMOVE)
            if len(stmt.body) == 1
            else (assign, cst.RemovalSentinel.REMOVE)
        ]
    inside = {id(n) for red, _ in direct.values() for n in all_nodes(red)}
    for sub in sels:
        if id(sub) not in inside:
            changes.append((sub, sub.value))
    for c in counts:
        got = masks.count_change(ctx, c, cst.Name(present))
        assert got is not None
        changes.append(got)  # type: ignore[arg-type]
    for rcall, how in [*reds, *direct.values()]:
        method = isinstance(rcall.func, cst.Attribute) and ctx.code(rcall.func.value).strip() != t
        recv: cst.BaseExpression = rcall.func.value if method else rcall.args[0].value  # type: ignore[attr-defined, union-attr]
        for sub in sels:
            if id(rcall) in direct and any(n is sub for n in all_nodes(recv)):
                recv = recv.deep_replace(sub, sub.value)  # type: ignore[assignment]
        kept = template(f"{t}.where({present}, __s__, 0).sum()", s=recv)
        new = kept if how == "sum" else template(f"__k__ / {present}.sum()", k=kept)
        changes.append((rcall, _paren_for(ctx, rcall, new)))
    if before is not None:
        # the mask's line goes just before the first use, with that statement's own changes
        inner = {id(n): r for n, r in changes if any(a is before for a in ctx.ancestors(n))}
        changes = [(n, r) for n, r in changes if id(n) not in inner]
        line_of = cst.SimpleStatementLine([new_assign], leading_lines=leading_lines(before))
        kept = before.visit(_Replace(inner)).with_changes(leading_lines=[])  # type: ignore[arg-type, assignment, union-attr]
        changes.append((before, cst.FlattenSentinel([line_of, kept])))
    return Rewrite(
        title="score every class and reduce over a presence mask (`torch.isin`) instead of "
        "indexing by `unique`'s classes",
        changes=changes,
        imports=("torch",),
    )


class _Replace(cst.CSTTransformer):
    def __init__(self, changes: dict[int, object]) -> None:
        self.changes = changes

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[no-untyped-def]
        return self.changes.get(id(original), updated)


def _first_use_statement(
    ctx: FixContext, assign: cst.Assign, uses: list[cst.CSTNode]
) -> cst.BaseStatement | str:
    """The statement of ``assign``'s block that holds the first of ``uses`` (where a line
    computed after the statements before it can go), or why there is none."""
    stmt = ctx.statement(assign)
    block = ctx.parent(stmt) if stmt is not None else None
    first = min(uses, key=lambda n: ctx.span(n)[:2])
    for a in [first, *ctx.ancestors(first)]:
        if ctx.parent(a) is block and isinstance(a, cst.BaseStatement):
            return a
    return "the classes are used outside the block that computes them"


def _index_sub(ctx: FixContext, use: cst.Name) -> cst.Subscript | None:
    """``x[use]`` (``use`` the only index, ``x`` a name of a tensor), read."""
    idx = ctx.parent(use)
    el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    if (
        isinstance(sub, cst.Subscript)
        and len(sub.slice) == 1
        and isinstance(sub.value, cst.Name)
        and ctx.is_tensor(sub.value)
        and not isinstance(ctx.parent(sub), (cst.AssignTarget, cst.AugAssign))
    ):
        return sub
    return None


def _elementwise_assign(ctx: FixContext, sub: cst.Subscript) -> cst.Assign | None:
    """The ``name = ...`` whose value holds ``sub`` through elementwise operations only."""
    cur: cst.CSTNode | None = sub
    while cur is not None:
        p = ctx.parent(cur)
        if isinstance(p, cst.Assign) and p.value is cur:
            ok = len(p.targets) == 1 and isinstance(p.targets[0].target, cst.Name)
            return p if ok else None
        cur = _elementwise_parent(ctx, cur)
    return None


def _elementwise_parent(ctx: FixContext, cur: cst.CSTNode) -> cst.BaseExpression | None:
    """The expression that applies one elementwise operation to ``cur`` (an operator other
    than ``@``, a method in ``_ELEMENTWISE``), or None."""
    p = ctx.parent(cur)
    if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)) and not isinstance(
        getattr(p, "operator", None), cst.MatrixMultiply
    ):
        return p
    if isinstance(p, cst.Attribute) and p.value is cur and p.attr.value in _ELEMENTWISE:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and call.func is p:
            return call
    return None


def _elementwise_reduction(ctx: FixContext, sub: cst.Subscript) -> tuple[cst.Call, str] | None:
    """The ``.mean()`` / ``.sum()`` that reduces ``sub`` through elementwise operations in
    the same expression (``1 - dice[classes].mean()``, ``(1 - dice[classes]).sum()``)."""
    cur: cst.BaseExpression = sub
    while True:
        red = _method_reduction(ctx, cur)
        if red is not None:
            return red
        p = ctx.parent(cur)
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if (
            isinstance(call, cst.Call)
            and len(call.args) == 1
            and p.keyword is None  # type: ignore[union-attr]
            and not p.star  # type: ignore[union-attr]
            and ctx.code(call.func).strip() in (ctx.torch("mean"), ctx.torch("sum"))
        ):
            return call, ctx.code(call.func).strip().rpartition(".")[2]
        up = _elementwise_parent(ctx, cur)
        if up is None:
            return None
        cur = up


def _method_reduction(ctx: FixContext, use: cst.BaseExpression) -> tuple[cst.Call, str] | None:
    """``use.mean()`` / ``use.sum()`` with no arguments: the call and the method's name."""
    attr = ctx.parent(use)
    red = ctx.parent(attr) if isinstance(attr, cst.Attribute) else None
    if (
        isinstance(attr, cst.Attribute)
        and attr.value is use
        and attr.attr.value in ("mean", "sum")
        and isinstance(red, cst.Call)
        and red.func is attr
        and not red.args
    ):
        return red, attr.attr.value
    return None


def _paren_for(
    ctx: FixContext, old: cst.BaseExpression, new: cst.BaseExpression
) -> cst.BaseExpression:
    """``new`` in parentheses where it replaces ``old`` inside an operation or a call's
    receiver; as it is elsewhere (a return, an assignment, an argument)."""
    p = ctx.parent(old)
    if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation, cst.Attribute, cst.Subscript)):
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return new


def unique_iter_loop(
    ctx: FixContext, call: cst.Call, lowering: Callable[..., object] | None = None
) -> Rewrite | Proposal | NoFix | None:
    """``for c in torch.unique(t):`` (``t.unique()``, ``t.unique().tolist()``) whose body is
    any statements, ``continue``/``break`` on tensors included -> ``for c in range(C):`` with
    the presence of ``c`` in ``t`` as the first skip of each iteration, the body under the
    masks of :func:`loops.masked_for`. ``C`` is the size of a dimension ``c`` indexes
    (``probs[:, c]``, ``self.centers[c]``, a store ``protos[c] = ...``): a class beyond it
    raised ``IndexError`` in eager, so every class eager saw is visited, in the same
    (sorted) order, and the absent ones change nothing. None when ``call`` is not such a
    loop's iterable (or the ``unique`` call of it)."""
    from compilelint.fix.codemods import cl101_tensor_dependent_branch as cl101

    loop = ctx.parent(call)
    uniq = call
    if isinstance(loop, cst.Attribute) and loop.attr.value == "tolist":
        outer = ctx.parent(loop)
        if not (isinstance(outer, cst.Call) and not outer.args):
            return None
        loop = ctx.parent(outer)
        if not isinstance(loop, cst.For) or loop.iter is not outer:
            return None
    elif not isinstance(loop, cst.For) or loop.iter is not call:
        if (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "tolist"
            and not call.args
        ):
            inner = call.func.value
            if isinstance(inner, cst.Call) and isinstance(loop, cst.For) and loop.iter is call:
                uniq = inner
            else:
                return None
        else:
            return None
    assert isinstance(loop, cst.For)
    target = _unique_of(ctx, uniq)
    if target is None:
        return None
    if not isinstance(loop.target, cst.Name):
        return NoFix("the loop over `unique` unpacks its classes")
    c = loop.target.value
    size = _class_count(ctx, loop, c)
    pre: list[cst.BaseStatement] = []
    why = f"`range({size})`: a class beyond it raised `IndexError` in eager"
    if size is None:
        attr = _count_attr(ctx, loop)
        if attr is None:
            return NoFix(
                "the class count is not known: no tensor is indexed by the class (`probs[:, c]`,"
                " `self.centers[c]`) whose size would bound it, and the class has no count "
                "attribute (`self.num_classes`, `self.max_instances`); loop over "
                "`range(num_classes)` with a presence mask `(target == c).any()` and select "
                "each update with `torch.where(present, new, old)`"
            )
        size = f"self.{attr}"
        tt = ctx.code(target.with_changes(lpar=[], rpar=[])).strip()
        t = ctx.torch()
        pre.append(
            cst.parse_statement(
                f"{t}._assert_async((({tt} >= 0) & ({tt} < {size})).all(), "
                f'"a class outside [0, {attr}) was skipped")\n'
            )
        )
        why = (
            f"`range({size})`, the count attribute; an in-graph check raises where a value of "
            f"`{tt}` lies outside it (eager would have visited it)"
        )
    for use in name_nodes(loop.body, c, reads_only=True):
        p = ctx.parent(use)
        if isinstance(p, cst.Attribute) and p.value is use:
            return NoFix(f"the class `{c}` is used as a tensor (`{ctx.code(p).strip()}`)")
    present = template(f"(__t__ == {c}).any()", t=target.with_changes(lpar=[], rpar=[]))

    def low(*a: object, **kw: object) -> object:
        return cl101.TensorDependentBranchWhere()._lowering(*a, **kw)  # type: ignore[arg-type]

    return loops.masked_for(
        ctx,
        loop,
        lowering or low,  # type: ignore[arg-type]
        lambda e: cl101.tensor_test(ctx, e),
        lambda e: cl101._tensor_part(ctx, e),
        new_iter=template(f"range({size})"),
        present=present,
        why_iter=(
            f"loop over every class ({why}) with `(... == {c}).any()` as the first mask of "
            "each iteration: `unique` gave as many classes as the data held"
        ),
        pre=pre,
    )


_COUNT_ATTR = re.compile(
    r"self\.((?:num|n|max|nb)_?(?:classes|class|instances|labels|way|ids|segments|clusters))\s*="
)


def _count_attr(ctx: FixContext, loop: cst.For) -> str | None:
    """A count attribute of the loop's class (``self.num_classes = ...``), set in
    ``__init__``."""
    klass = ctx.enclosing(loop, cst.ClassDef)
    if klass is None:
        return None
    m = _COUNT_ATTR.search(ctx.code(klass))
    return m.group(1) if m else None
