"""Boolean-mask selections rewritten to keep a static shape (shared by CL110 and CL111).

A selection is ``x[m]`` (one boolean index) or ``torch.masked_select(x, m)`` /
``x.masked_select(m)``; its size is only known from the data (GB0036). Rewrites, in order:

- **reduced at once**: ``x[m].sum()`` -> ``torch.where(m, x, 0).sum()`` (``.nansum()``; ``.prod()``
  with 1; ``.mean()`` -> the masked sum over ``m.sum()``), function forms too;
- **bound to a name whose every use is a reduction** (``sel = x[m]`` ... ``sel.mean()``,
  ``sel.sum()``, ``sel.numel()``/``len(sel)``/``sel.shape[0]`` in arithmetic): ``sel =
  torch.where(m, x, 0)``; sums read it as they are, a mean becomes its sum over the count
  ``m.sum()``, a count becomes ``m.sum()`` (a 0-d tensor);
- **otherwise** (the selection flows on with its data-dependent shape): a :class:`Proposal`
  to mask instead (``torch.where(m, x, 0)``: the shape stays, unselected positions are zero),
  never applied: the outputs match only when later code ignores those positions.

All assume the mask has the shape of ``x`` (an element mask); for a row mask the verifier sees
different outputs and rejects the fix.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods import flow, outputs, structural
from compilelint.fix.codemods.base import (
    atom,
    bound_names,
    comments_in,
    leading_lines,
    name_nodes,
    names_in,
    not_compiling,
    number_expr,
    paren,
    side_effect,
    template,
)
from compilelint.fix.codemods.counted import counted as count_rewrite
from compilelint.fix.codemods.selection import (
    Selection,
    index_select,
    normalized_selection,
    subscript_selection,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.static.checks.cl111_boolean_mask_indexing import BOOL_METHODS

FILL = {
    "sum": "0",
    "nansum": "0",
    "prod": "1",
    "mean": "0",
    "max": '-float("inf")',
    "amax": '-float("inf")',
    "min": 'float("inf")',
    "amin": 'float("inf")',
}
# reductions whose fill value the elementwise steps before them need not keep (|-inf| = inf)
_NOT_THROUGH_STEPS = frozenset({"prod", "max", "amax", "min", "amin"})
# contexts where a division needs no parentheses
_PLAIN = (cst.Assign, cst.AnnAssign, cst.Return, cst.Arg, cst.Expr, cst.Element)

NOT_REDUCED = (
    "the selection is not reduced at once (`x[m].sum()`) nor bound to a name used only in "
    "reductions; what follows needs the selected shape"
)
_WHY_PROPOSED = (
    "masking keeps the full shape with zeros where the mask is False, and the selection flows "
    "on with its data-dependent shape: the outputs match only when the code that follows "
    "ignores the zeroed positions (sums, weights, scatter-adds), which the codemod cannot show"
)


_MASKING_MATCHES = (
    "keeps the full shape with zeros where the mask is False: the outputs match only when "
    "the code that follows ignores the zeroed positions"
)


_WIDEN = (cst.Add, cst.Subtract, cst.Multiply)


def widen(ctx: FixContext, sel: Selection) -> Selection:
    """``a[m] - b[m]`` (``+``, ``*``, ``==``, ``!=``; a number on one side too) is
    ``(a - b)[m]`` when ``a`` and ``b`` have the mask's shape: the selection of the whole
    expression, so its reductions can be masked. Not through division or functions (``log``):
    computed on the unselected positions too, they could give an infinite gradient there,
    which the mask turns into NaN."""
    mtext = ctx.code(sel.m).strip()
    while True:
        p = ctx.parent(sel.node)
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, _WIDEN):
            left, right = p.left, p.right
            other = right if left is sel.node else left
            if number_expr(other):
                o = other
            else:
                s = _same_mask(ctx, other, mtext)
                if s is None or s.ordered != sel.ordered:
                    return sel
                o = s.x
            a, b = (sel.x, o) if left is sel.node else (o, sel.x)
            x: cst.BaseExpression = p.with_changes(
                left=_operand(a, p.operator, False),
                right=_operand(b, p.operator, True),
                lpar=[],
                rpar=[],
            )
            sel = Selection(p, x, sel.m, sel.ordered)
            continue
        if isinstance(p, cst.Comparison) and len(p.comparisons) == 1:
            c = p.comparisons[0]
            if not isinstance(c.operator, (cst.Equal, cst.NotEqual)):
                return sel
            other = c.comparator if p.left is sel.node else p.left
            s = _same_mask(ctx, other, mtext)
            if s is None or s.ordered != sel.ordered:
                return sel
            left, right = (sel.x, s.x) if p.left is sel.node else (s.x, sel.x)
            x = p.with_changes(
                left=_operand(left, c.operator, False),
                comparisons=[c.with_changes(comparator=_operand(right, c.operator, True))],
                lpar=[],
                rpar=[],
            )
            sel = Selection(p, x, sel.m, sel.ordered)
            continue
        return sel


def _same_mask(ctx: FixContext, e: cst.BaseExpression, mtext: str) -> Selection | None:
    """The selection ``e`` makes with the mask written ``mtext`` (normalized), else None."""
    if not isinstance(e, cst.Subscript):
        return None
    s = normalized_selection(ctx, e, lambda v: ctx.code(v).strip() == mtext)
    return s if s is not None and s.node is e and ctx.code(s.m).strip() == mtext else None


def _operand(e: cst.BaseExpression, op: cst.CSTNode, right: bool) -> cst.BaseExpression:
    """``e`` as an operand of ``op``, parenthesized where precedence needs it."""
    if e.lpar:
        return e
    if isinstance(e, cst.Comparison):
        return paren(e)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Add, cst.Subtract)):
        if isinstance(op, cst.Multiply) or (right and isinstance(op, cst.Subtract)):
            return paren(e)
    return e


# elementwise losses whose `reduction="none"` result has the shape of their inputs
_LOSSES = frozenset(
    {
        "l1_loss",
        "mse_loss",
        "smooth_l1_loss",
        "huber_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "soft_margin_loss",
    }
)
_LOSS_KWARGS = frozenset({"reduction", "beta", "delta"})


def loss_of_selections(ctx: FixContext, sel: Selection) -> Rewrite | None:
    """``F.smooth_l1_loss(a[m], b[m], beta=b)`` (an elementwise loss of two selections with
    one mask, reduced by mean or sum) -> ``torch.where(m, F.smooth_l1_loss(a, b, beta=b,
    reduction="none"), 0).sum() / m.sum()``: the loss per element, masked, then reduced."""
    got = flow.functional_pair_call(ctx, sel.node, _LOSSES, _LOSS_KWARGS)
    if got is None:
        return None
    call, last, pos, kws = got
    red = "mean"
    for a in kws:
        if a.keyword.value == "reduction":  # type: ignore[union-attr]
            if not isinstance(a.value, cst.SimpleString) or a.value.evaluated_value not in (
                "mean",
                "sum",
            ):
                return None
            red = str(a.value.evaluated_value)
    mtext = ctx.code(sel.m).strip()
    plain: list[cst.Arg] = []
    for a in pos:
        s = subscript_selection(a.value) if isinstance(a.value, cst.Subscript) else None
        if s is None or ctx.code(s.m).strip() != mtext:
            return None
        plain.append(a.with_changes(value=s.x))
    rest = [a for a in kws if a.keyword.value != "reduction"]  # type: ignore[union-attr]
    none = cst.Arg(
        cst.SimpleString('"none"'),
        keyword=cst.Name("reduction"),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    args = [*plain, *rest, none]
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    per = call.with_changes(args=args, lpar=[], rpar=[])

    def build(shape: flow.MaskShape) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
        where = template(f"{ctx.torch()}.where(__m__, __l__, 0).sum()", m=shape.where, l=per)
        if red == "mean":
            new: cst.BaseExpression = template(
                f"__w__ / __n__{_guard_clamp(ctx, call, sel.m)}", w=where, n=shape.elements
            )
            if not isinstance(ctx.parent(call), _PLAIN):
                new = paren(new)
        else:
            new = where
        new = new.with_changes(lpar=[*call.lpar, *new.lpar], rpar=[*new.rpar, *call.rpar])
        return [(call, new)]

    return Rewrite(
        title=f'the loss per element (`reduction="none"`), masked, then its {red}',
        changes=flow.shaped_changes(ctx, sel.m, plain[0].value, call, build),
        imports=("torch",),
    )


def count_change(
    ctx: FixContext,
    cnt: cst.BaseExpression,
    m: cst.BaseExpression,
    elements: cst.BaseExpression | None = None,
) -> tuple[cst.CSTNode, cst.BaseExpression] | None:
    """How the count ``cnt`` of a selection (or of a mask's indices) becomes ``m.sum()``:
    in arithmetic as is; ``max(cnt, c)`` -> ``m.sum().clamp(min=c)``; in eager-only code
    ``int(m.sum())``. None: a Python number is needed (a branch, a size). ``elements``: the
    count of selected elements where it is not ``m.sum()`` (a row mask), for ``numel()``."""
    count = template("__m__.sum()", m=atom(m))
    if elements is not None and isinstance(cnt, cst.Call) and _attr_of(cnt) == "numel":
        count = elements
    if any(isinstance(a, cst.If) and not_compiling(a.test) for a in ctx.ancestors(cnt)):
        return cnt, template("int(__c__)", c=count).with_changes(lpar=cnt.lpar, rpar=cnt.rpar)
    p = ctx.parent(cnt)
    if isinstance(p, cst.BinaryOperation):
        return cnt, count.with_changes(lpar=cnt.lpar, rpar=cnt.rpar)
    call = ctx.parent(p) if isinstance(p, cst.Arg) else None
    if (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "max"
        and len(call.args) == 2
        and not any(a.keyword or a.star for a in call.args)
    ):
        other = call.args[1].value if call.args[0] is p else call.args[0].value
        if number_expr(other):
            new = template("__c__.clamp(min=__o__)", c=count, o=other)
            return call, new.with_changes(lpar=call.lpar, rpar=call.rpar)
    return None


def count_at_once(ctx: FixContext, sel: Selection) -> Rewrite | None:
    """``len(x[m])``, ``x[m].shape[0]``, ``x[m].size(0)``, ``x[m].numel()`` in arithmetic ->
    ``m.sum()``."""
    p = ctx.parent(sel.node)
    cnt: cst.BaseExpression | None = None
    if not sel.ordered and not (isinstance(p, cst.Attribute) and p.attr.value == "numel"):
        return None  # its rows are not the mask's
    if isinstance(p, cst.Attribute) and p.value is sel.node:
        call = ctx.parent(p)
        if p.attr.value == "numel" and isinstance(call, cst.Call) and not call.args:
            cnt = call
        elif p.attr.value == "size" and isinstance(call, cst.Call) and len(call.args) == 1:
            a = call.args[0].value
            cnt = call if isinstance(a, cst.Integer) and a.value == "0" else None
        elif p.attr.value == "shape" and isinstance(call, cst.Subscript):
            s = subscript_selection(call)
            cnt = call if s is not None and ctx.code(s.m).strip() == "0" else None
    elif isinstance(p, cst.Arg) and p.keyword is None and not p.star:
        call = ctx.parent(p)
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "len"
            and len(call.args) == 1
        ):
            cnt = call
    elements = flow.mask_shape(ctx, sel.m, sel.x, sel.node).elements
    got = count_change(ctx, cnt, sel.m, elements) if cnt is not None else None
    if got is None:
        named = count_by_name(ctx, cnt, sel.m, elements) if cnt is not None else None
        if named is None:
            return None
        return Rewrite(
            title="count the selection with `mask.sum()` instead of selecting; the count's "
            "name is read only in arithmetic (`max(n, c)` as `n.clamp(min=c)`)",
            changes=named,  # type: ignore[arg-type]
            imports=(),
        )
    return Rewrite(
        title="count the selection with `mask.sum()` instead of selecting",
        changes=[got],
        imports=(),
    )


def _arith_reads(ctx: FixContext, fn: cst.FunctionDef, name: str, line: int) -> list[cst.Name]:
    """The reads of ``name`` (bound once, at ``line``) when each is an operand of arithmetic
    (``a / n``); else []."""
    reads = [
        r
        for r in name_nodes(fn.body, name, reads_only=True)
        if ctx.span(r)[0] > line and ctx.function(r) is fn
    ]
    if not reads or any(not isinstance(ctx.parent(r), cst.BinaryOperation) for r in reads):
        return []
    return reads


def count_by_name(
    ctx: FixContext,
    cnt: cst.BaseExpression,
    m: cst.BaseExpression,
    elements: cst.BaseExpression | None = None,
) -> list[tuple[cst.CSTNode, cst.CSTNode]] | None:
    """``n = x[m].numel()`` (``len``, ``.shape[0]``, ``masked_select(x, m).numel()``) bound
    once to a name whose every read is arithmetic (``loss / n``) or ``k = max(n, c)`` (``c`` a
    number) bound once to a name read only in arithmetic: ``n = m.sum()`` (a 0-d tensor) and
    ``k = n.clamp(min=c)``; arithmetic with a 0-d tensor gives the number's value as a
    tensor. None: another read (a size, a branch, a return of the Python number)."""
    assign = ctx.parent(cnt)
    if (
        not isinstance(assign, cst.Assign)
        or assign.value is not cnt
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    fn = ctx.function(assign)
    if fn is None or any(
        isinstance(a, (cst.For, cst.While)) for a in _ancestors_to(ctx, assign, fn)
    ):
        return None
    name = assign.targets[0].target.value
    if len(bound_names(fn.body).get(name, [])) != 1 or _rebound_after(
        ctx, fn, names_in(m), ctx.span(assign)[0] + 1
    ):
        return None
    count = template("__m__.sum()", m=atom(m))
    if elements is not None and isinstance(cnt, cst.Call) and _attr_of(cnt) == "numel":
        count = elements
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = [(cnt, count)]
    line = ctx.span(assign)[0]
    reads = [
        r
        for r in name_nodes(fn.body, name, reads_only=True)
        if ctx.span(r)[0] > line and ctx.function(r) is fn
    ]
    if not reads:
        return None
    for r in reads:
        p = ctx.parent(r)
        if isinstance(p, cst.BinaryOperation):
            continue
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "max"
            and len(call.args) == 2
            and not any(a.keyword or a.star for a in call.args)
        ):
            return None
        other = call.args[1].value if call.args[0] is p else call.args[0].value
        if not number_expr(other):
            return None
        outer = ctx.parent(call)
        if not isinstance(outer, cst.BinaryOperation):
            if not (
                isinstance(outer, cst.Assign)
                and len(outer.targets) == 1
                and isinstance(outer.targets[0].target, cst.Name)
                and outer.value is call
                and len(bound_names(fn.body).get(outer.targets[0].target.value, [])) == 1
                and _arith_reads(ctx, fn, outer.targets[0].target.value, ctx.span(outer)[0])
            ):
                return None
        new = template("__c__.clamp(min=__o__)", c=cst.Name(name), o=other)
        changes.append((call, new.with_changes(lpar=call.lpar, rpar=call.rpar)))
    return changes


def _reduction(ctx: FixContext, node: cst.CSTNode) -> tuple[cst.Call, str] | None:
    """The call reducing ``node`` at once, with its op: ``node.sum()``, ``torch.mean(node)``."""
    p = ctx.parent(node)
    if isinstance(p, cst.Attribute) and p.value is node and p.attr.value in FILL:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and call.func is p:
            if call.args:
                return None
            return call, p.attr.value
    elif isinstance(p, cst.Arg) and p.keyword is None and not p.star:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and len(call.args) == 1:
            head, _, last = ctx.code(call.func).strip().rpartition(".")
            if last in FILL and head == ctx.torch():
                return call, last
    return None


def _filled(
    ctx: FixContext, x: cst.BaseExpression, m: cst.BaseExpression, fill: str, rows: bool
) -> cst.BaseExpression:
    """``torch.where(m, x, fill)``; ``rows``: the mask may index only the leading dims of
    ``x`` (a row mask), so it is broadcast over the rest and the masked dims flattened into
    one, as the selection has them."""
    t = ctx.torch()
    if not rows:
        return template(f"{t}.where(__m__, __x__, {fill})", m=m, x=x)
    return template(
        f"{t}.where(__m__.reshape(__m__.shape + (1,) * (__x__.dim() - __m__.dim())), "
        f"__x__, {fill}).flatten(0, __m__.dim() - 1)",
        m=m,
        x=x,
    )


def _guard_clamp(ctx: FixContext, node: cst.CSTNode, m: cst.BaseExpression) -> str:
    """``.clamp(min=1)`` for the count of a mean inside ``if m.any():`` or the selected side of
    ``torch.where(m.any(), ..., ...)`` (the same mask): it is never used with an empty mask, and the clamp keeps the mean finite (with a finite
    gradient) when a later rewrite computes the branch always (``torch.where``)."""
    text = ctx.code(m).strip()
    for a in ctx.ancestors(node):
        if isinstance(a, cst.If) and not_compiling(a.test):
            continue
        if isinstance(a, cst.If):
            got = _any_of(ctx, a.test)
            if got is not None and ctx.code(got).strip() == text:
                return ".clamp(min=1)"
        if (
            isinstance(a, cst.Call)
            and _is_name(ctx, a.func, ctx.torch("where"))
            and len(a.args) == 3
            and any(x is a.args[1] for x in ctx.ancestors(node))
        ):
            got = _any_of(ctx, a.args[0].value)
            if got is not None and ctx.code(got).strip() == text:
                return ".clamp(min=1)"
        if isinstance(a, cst.FunctionDef):
            break
    return ""


def reduced_at_once(ctx: FixContext, sel: Selection, *, rows: bool = False) -> Rewrite | None:
    """``x[m].sum()``, ``x[m].abs().mean()``, ``x[m].sum(0)``, ``torch.sum(x[m])``."""
    top = _zero_kept(ctx, sel.node)
    found = _reduction_of(ctx, top)
    if found is None:
        return None
    target, op, dim0 = found
    if dim0 and not sel.ordered:
        return None
    if rows and op != "sum" and op != "nansum" and not dim0:
        return None  # over all elements of selected rows: the row size is not known here
    rows = rows or dim0
    if op in _NOT_THROUGH_STEPS and top is not sel.node:
        return None  # the steps need not keep a one a one, an infinity an infinity
    if rows and not isinstance(sel.x, (cst.Name, cst.Attribute)):
        return None
    if rows and not isinstance(sel.m, cst.Name):
        return None

    def build(shape: flow.MaskShape) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
        where = _filled(ctx, sel.x, sel.m if rows else shape.where, FILL[op], rows)
        inner = where if top is sel.node else top.deep_replace(sel.node, where)
        dim = "0" if rows else ""
        if op == "mean":
            new = template(
                f"__w__.sum({dim}) / __n__{_guard_clamp(ctx, target, sel.m)}",
                w=atom(inner),  # type: ignore[arg-type]
                n=shape.rows if rows else shape.elements,
            )
            if not isinstance(ctx.parent(target), _PLAIN):
                new = paren(new)
        else:
            new = template(f"__w__.{op}({dim})", w=atom(inner))  # type: ignore[arg-type]
        new = new.with_changes(lpar=[*target.lpar, *new.lpar], rpar=[*new.rpar, *target.rpar])
        return [(target, new)]

    if rows:
        changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] = list(
            build(flow.mask_shape(ctx, sel.m, sel.m, target))
        )
    else:
        changes = flow.shaped_changes(ctx, sel.m, sel.x, target, build)
    return Rewrite(
        title=f"reduce with `torch.where(mask, x, {FILL[op]})` instead of selecting",
        changes=changes,
        imports=("torch",),
    )


def count_use(ctx: FixContext, name: cst.Name) -> cst.BaseExpression | None:
    """The expression counting the selection at this read: ``n.numel()``, ``len(n)``,
    ``n.shape[0]``, ``n.size(0)``."""
    p = ctx.parent(name)
    if isinstance(p, cst.Attribute) and p.value is name:
        call = ctx.parent(p)
        if p.attr.value == "numel" and isinstance(call, cst.Call) and not call.args:
            return call
        if p.attr.value == "size" and isinstance(call, cst.Call) and len(call.args) == 1:
            if isinstance(call.args[0].value, cst.Integer) and call.args[0].value.value == "0":
                return call
        if p.attr.value == "shape" and isinstance(call, cst.Subscript):
            s = subscript_selection(call)
            if s is not None and isinstance(s.m, cst.Integer) and s.m.value == "0":
                return call
    if isinstance(p, cst.Arg) and not p.star and p.keyword is None:
        call = ctx.parent(p)
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "len"
            and len(call.args) == 1
        ):
            return call
    return None


def _binding(ctx: FixContext, sel: Selection) -> tuple[cst.Assign, str] | None:
    assign = ctx.parent(sel.node)
    if (
        isinstance(assign, cst.Assign)
        and assign.value is sel.node
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
    ):
        return assign, assign.targets[0].target.value
    return None


def _rebound_after(ctx: FixContext, fn: cst.FunctionDef, names: set[str], line: int) -> bool:
    """Whether one of ``names`` is bound in ``fn`` at or after ``line``."""
    for name, nodes in bound_names(fn.body).items():
        if name in names and any(ctx.span(n)[0] >= line for n in nodes):
            return True
    return False


_ZERO_KEEPING = frozenset({"abs", "square", "neg", "relu", "detach", "float", "double"})


def _zero_kept(ctx: FixContext, e: cst.BaseExpression) -> cst.BaseExpression:
    """The largest expression over ``e`` made of elementwise steps that keep a zero a zero
    (``.abs()``, ``** 2``, ``.pow(2)``, ``* c``, ``/ c``, ``-e``), with gradients defined at
    zero (not ``sqrt``): a zero-filled position then adds nothing to a sum after them."""
    while True:
        p = ctx.parent(e)
        if isinstance(p, cst.Attribute) and p.value is e:
            call = ctx.parent(p)
            if not (isinstance(call, cst.Call) and call.func is p):
                return e
            a = p.attr.value
            if a in _ZERO_KEEPING and not call.args:
                e = call
                continue
            if a == "pow" and len(call.args) == 1 and _power(call.args[0].value):
                e = call
                continue
            return e
        if isinstance(p, cst.BinaryOperation):
            op, other = p.operator, (p.right if p.left is e else p.left)
            if isinstance(op, cst.Power) and p.left is e and _power(p.right):
                e = p
                continue
            if isinstance(op, cst.Multiply) and number_expr(other):
                e = p
                continue
            if isinstance(op, cst.Divide) and p.left is e and number_expr(other):
                e = p
                continue
            return e
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Minus):
            e = p
            continue
        return e


def _power(e: cst.BaseExpression) -> bool:
    try:
        return isinstance(e, (cst.Integer, cst.Float)) and float(e.value) >= 1
    except ValueError:
        return False


def _dim0(call: cst.Call) -> bool:
    """``(0)`` or ``(dim=0)``: a reduction over the selected elements or rows."""
    if len(call.args) != 1 or call.args[0].star:
        return False
    a = call.args[0]
    if a.keyword is not None and a.keyword.value != "dim":
        return False
    return isinstance(a.value, cst.Integer) and a.value.value == "0"


def _reduction_of(ctx: FixContext, e: cst.BaseExpression) -> tuple[cst.Call, str, bool] | None:
    """(call, op, over dim 0) of ``e.sum()``, ``e.mean(0)``, ``torch.sum(e)``."""
    p = ctx.parent(e)
    if isinstance(p, cst.Attribute) and p.value is e and p.attr.value in FILL:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and call.func is p:
            if not call.args:
                return call, p.attr.value, False
            if p.attr.value in ("sum", "mean", "nansum") and _dim0(call):
                return call, p.attr.value, True
        return None
    found = _reduction(ctx, e)
    return (found[0], found[1], False) if found is not None else None


def _eager_only(ctx: FixContext, node: cst.CSTNode) -> bool:
    return any(isinstance(a, cst.If) and not_compiling(a.test) for a in ctx.ancestors(node))


def reduced_by_name(
    ctx: FixContext, sel: Selection, *, rows: bool = False
) -> Rewrite | NoFix | None:
    """``sel = x[m]`` whose every later use is a reduction (after zero-keeping elementwise
    steps) or a count (None: not bound to a name)."""
    bound = _binding(ctx, sel)
    if bound is None:
        return None
    assign, name = bound
    fn = ctx.function(assign)
    if fn is None:
        return NoFix("the selection is not in a function")
    line = ctx.span(assign)[0]
    if any(isinstance(a, (cst.For, cst.While)) for a in _ancestors_to(ctx, assign, fn)):
        return NoFix("the selection is inside a loop")
    binds = bound_names(fn.body).get(name, [])
    if len(binds) > 1 and ctx.parent(ctx.statement(assign) or assign) is not fn.body:
        # `sel = x` ... `if c: sel = x[m]` ... `sel.mean()`: the mean of which value?
        return NoFix(f"`{name}` is bound elsewhere too and the selection is not always run")
    if any(ctx.span(b)[0] > line for b in binds):
        fb = fallback(ctx, sel, assign, name, fn, line)
        if fb is not None:
            return fb
        return NoFix(f"`{name}` is bound again after the selection")
    reads = [
        n
        for n in name_nodes(fn.body, name)
        if n is not assign.targets[0].target and ctx.span(n)[0] > line
    ]
    if not reads:
        return NoFix(f"`{name}` is never read after the selection")
    counts: list[cst.BaseExpression] = []
    reds: list[tuple[cst.Call, str, bool]] = []
    for r in reads:
        if ctx.function(r) is not fn:
            return NoFix(f"`{name}` is read in a nested function")
        top = _zero_kept(ctx, r)
        red = _reduction_of(ctx, top)
        if red is not None:
            if red[1] in _NOT_THROUGH_STEPS and top is not r:
                return NoFix(f"`{name}` is changed elementwise before its `{red[1]}`")
            reds.append(red)
            continue
        cnt = count_use(ctx, r)
        if cnt is not None and not sel.ordered and _attr_of(cnt) != "numel":
            return NoFix(
                f"`{name}` is counted by rows (`{ctx.code(cnt)}`) and its mask indexes an inner "
                "dimension: the row count is not the mask's"
            )
        if cnt is not None:
            if count_change(ctx, cnt, sel.m) is None:
                return NoFix(
                    f"the count `{ctx.code(cnt)}` is used as a Python number (not in arithmetic): "
                    "as `mask.sum()` it would be a tensor"
                )
            counts.append(cnt)
            continue
        stmt = ctx.statement(r)
        use = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
        return NoFix(
            f"`{name}` is used in `{use}`, not only in reductions (sum, mean, numel): "
            "what follows needs the selected shape"
        )
    ops = {op for _, op, _ in reds}
    fills = {FILL[op] for op in ops}
    if len(fills) > 1:
        return NoFix(
            f"`{name}` is reduced in ways that need different fill values ({', '.join(sorted(ops))})"
        )
    rows = rows or any(d for _, _, d in reds)
    if rows and not sel.ordered:
        return NoFix(
            f"`{name}` is reduced over its rows (`dim=0`) and its mask indexes an inner dimension"
        )
    if rows and (
        any(op == "mean" and not d for _, op, d in reds)
        or any(isinstance(c, cst.Call) and _attr_of(c) == "numel" for c in counts)
    ):
        return NoFix(
            f"`{name}` is reduced both over its rows (`dim=0`) and over all its elements "
            "(`mean()`, `numel()`): the per-row size is not known here"
        )
    if rows and not isinstance(sel.x, (cst.Name, cst.Attribute)):
        return NoFix("the selected tensor is an expression; reducing over rows needs its name")
    fill = fills.pop() if fills else "0"
    need_mask = rows or bool(counts) or "mean" in ops
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] = []
    mask: cst.BaseExpression = sel.m

    def filled(mk: cst.BaseExpression) -> cst.BaseExpression:
        return _filled(ctx, sel.x, mk, fill, rows)

    def read_changes(shape: flow.MaskShape) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
        """The counts and means of the selection, as the mask ``shape`` counts."""
        out: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        count = shape.rows if rows else shape.elements
        for c in counts:
            got = count_change(ctx, c, mask, None if rows else shape.elements)
            assert got is not None
            out.append(got)
        for call, op, d in reds:
            if op != "mean":
                continue
            recv = call.func.value if isinstance(call.func, cst.Attribute) else call.args[0].value
            clamp = _guard_clamp(ctx, call, sel.m)
            new = template(f"__s__.sum({'0' if d else ''}) / __c__{clamp}", s=atom(recv), c=count)
            if not isinstance(ctx.parent(call), _PLAIN):
                new = paren(new)
            new = new.with_changes(lpar=[*call.lpar, *new.lpar], rpar=[*new.rpar, *call.rpar])
            out.append((call, new))
        return out

    stable = isinstance(sel.m, cst.Name) and not _rebound_after(ctx, fn, {sel.m.value}, line + 1)
    if need_mask and not stable:
        mname = ctx.fresh_name(f"{name}_mask")
        mask = cst.Name(mname)
        line_stmt = ctx.statement(assign)
        if not isinstance(line_stmt, cst.SimpleStatementLine) or len(line_stmt.body) != 1:
            return NoFix("the selection shares its line with other statements")
        first = cst.SimpleStatementLine(
            body=[cst.Assign([cst.AssignTarget(cst.Name(mname))], sel.m)],
            leading_lines=line_stmt.leading_lines,
        )
        shape = flow.mask_shape(ctx, mask, sel.x, assign, source=sel.m)
        second = line_stmt.with_changes(
            leading_lines=[],
            body=[assign.with_changes(value=filled(mask if rows else shape.where))],
        )
        changes.append((line_stmt, cst.FlattenSentinel([first, second])))
        changes.extend(read_changes(shape))
    elif rows:
        changes.append((sel.node, filled(sel.m)))
        changes.extend(read_changes(flow.mask_shape(ctx, sel.m, sel.m, assign)))
    else:
        changes.extend(
            flow.shaped_changes(
                ctx,
                sel.m,
                sel.x,
                assign,
                lambda shape: [(sel.node, filled(shape.where)), *read_changes(shape)],
            )
        )
    return Rewrite(
        title=f"keep `{name}` full-size with `torch.where(mask, x, {fill})`; its reductions "
        "read the mask",
        changes=changes,
        imports=("torch",),
    )


def fallback(
    ctx: FixContext,
    sel: Selection,
    assign: cst.Assign,
    name: str,
    fn: cst.FunctionDef,
    line: int,
) -> Rewrite | NoFix | None:
    """OHEM's fallback: ``sel = x[m]``; ``if <count of sel> < k: sel = other``; then one
    reduction of ``sel`` -> ``sel = torch.where(m, x, 0)`` and the reduction
    ``torch.where(<count as m.sum()> < k, other.mean(), sel.sum() / m.sum())``: both are
    computed, the condition selects (as the branch did); the count is clamped to 1 so that an
    empty mask gives no NaN gradient. None: not this shape."""
    stmt = ctx.statement(assign)
    block = ctx.parent(stmt) if stmt is not None else None
    if not isinstance(block, cst.IndentedBlock) or not isinstance(sel.m, cst.Name):
        return None
    body = list(block.body)
    i = body.index(stmt)  # type: ignore[arg-type]
    ifs = next((st for st in body[i + 1 :] if isinstance(st, cst.If)), None)
    if ifs is None or ifs.orelse is not None or not isinstance(ifs.body, cst.IndentedBlock):
        return None
    inner = ifs.body.body
    if len(inner) != 1 or not isinstance(inner[0], cst.SimpleStatementLine):
        return None
    (other_assign,) = inner[0].body if len(inner[0].body) == 1 else (None,)
    if not (
        isinstance(other_assign, cst.Assign)
        and len(other_assign.targets) == 1
        and isinstance(other_assign.targets[0].target, cst.Name)
        and other_assign.targets[0].target.value == name
        and name not in names_in(other_assign.value)
    ):
        return None
    binds = [b for b in bound_names(fn.body).get(name, []) if ctx.span(b)[0] > line]
    if len(binds) != 1 or not any(b is other_assign.targets[0] for b in binds):
        return None
    if_line, if_end = ctx.span(ifs)[0], ctx.span(ifs)[2]
    counts: list[cst.BaseExpression] = []
    after: list[cst.Name] = []
    for r in name_nodes(fn.body, name):
        at = ctx.span(r)[0]
        if r is assign.targets[0].target or r is other_assign.targets[0].target or at <= line:
            continue
        if any(a is ifs.test for a in ctx.ancestors(r)):
            cnt = count_use(ctx, r)
            if cnt is None:
                return NoFix(f"the condition reads `{name}` other than by its count")
            counts.append(cnt)
        elif at > if_end:
            after.append(r)
        else:
            return NoFix(f"`{name}` is read between the selection and the fallback")
    if len(after) != 1 or not counts:
        return None
    red = _reduction_of(ctx, after[0])
    if red is None or red[2] or red[1] not in ("mean", "sum", "nansum"):
        return NoFix(f"`{name}` after the fallback is not reduced at once (sum, mean)")
    call, op, _ = red
    moved = names_in(ifs.test) | names_in(other_assign.value)
    use_line = ctx.span(call)[0]
    if any(
        if_line < ctx.span(b)[0] <= use_line
        for n, bs in bound_names(fn.body).items()
        if n in moved and n != name
        for b in bs
    ):
        return NoFix("a name the condition or the fallback reads changes before the reduction")
    t = ctx.torch()
    count = template("__m__.sum()", m=sel.m)
    test = ifs.test.deep_replace(counts[0], count)
    for c in counts[1:]:
        test = test.deep_replace(c, count)  # type: ignore[union-attr]
    masked = (
        # clamped: the masked mean is taken only when the count passed the condition, and an
        # empty mask must not give a NaN gradient through the side torch.where does not pick
        template("__s__.sum() / __m__.sum().clamp(min=1)", s=cst.Name(name), m=sel.m)
        if op == "mean"
        else template(f"__s__.{op}()", s=cst.Name(name))
    )
    fall = template(f"__o__.{op}()", o=atom(other_assign.value))
    new = template(f"{t}.where(__c__, __f__, __k__)", c=test, f=fall, k=masked)  # type: ignore[arg-type]
    new = new.with_changes(lpar=call.lpar, rpar=call.rpar)
    return Rewrite(
        title=f"keep `{name}` full-size; the fallback's {op} and the masked {op} are both "
        "computed and `torch.where` picks one, as the branch did",
        changes=[
            (sel.node, _filled(ctx, sel.x, sel.m, "0", False)),
            (ifs, cst.RemovalSentinel.REMOVE),
            (call, new),
        ],
        imports=("torch",),
    )


def _attr_of(e: cst.BaseExpression) -> str:
    """The method a call calls (``n.numel()``: ``numel``); "" for any other expression."""
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
        return e.func.attr.value
    return ""


def _ancestors_to(ctx: FixContext, node: cst.CSTNode, top: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for a in ctx.ancestors(node):
        if a is top:
            break
        out.append(a)
    return out


_MASK_WORDS = (
    "mask",
    "keep",
    "valid",
    "sel",
    "hit",
    "done",
    "dead",
    "pos",
    "neg",
    "hard",
    # foreground anchors, visible keypoints (detection and pose code)
    "fg",
    "foreground",
    "visib",
)


def _mask_expr(e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.Comparison):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return True
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr)):
        return _mask_expr(e.left) or _mask_expr(e.right)
    if isinstance(e, cst.Call) and isinstance(e.func, (cst.Attribute, cst.Name)):
        f = e.func.attr if isinstance(e.func, cst.Attribute) else e.func
        return f.value in BOOL_METHODS
    return False


def looks_like_mask(ctx: FixContext, node: cst.CSTNode, m: cst.BaseExpression) -> bool:
    """Whether ``m`` is certainly meant as a boolean mask: a comparison or logical
    combination, a name bound to one in the function, or a name that says so (``keep``,
    ``valid_mask``). An observed break's line may hold other subscripts (``x.shape[0]``)."""
    if _mask_expr(m):
        return True
    if not isinstance(m, cst.Name):
        return False
    if any(w in m.value.lower() for w in _MASK_WORDS):
        return True
    fn = ctx.function(node)
    if fn is None:
        return False
    for n in bound_names(fn.body).get(m.value, []):
        if isinstance(n, cst.AssignTarget):
            a = ctx.parent(n)
            if isinstance(a, cst.Assign) and _mask_expr(a.value):
                return True
    return False


def proposal(ctx: FixContext, sel: Selection, reason: str = _WHY_PROPOSED) -> Proposal:
    new = template(f"{ctx.torch()}.where(__m__, __x__, 0)", m=sel.m, x=sel.x)
    new = new.with_changes(lpar=sel.node.lpar, rpar=sel.node.rpar)
    return Proposal(
        title="mask instead of selecting (`torch.where(mask, x, 0)`: the shape stays static)",
        changes=[(sel.node, new)],
        reason=reason,
        imports=("torch",),
    )


def rewrite_selection(ctx: FixContext, sel: Selection, *, rows: bool) -> Rewrite | NoFix:
    """A rewrite of a selection made from a mask elsewhere (its indices' read ``x[idx]``),
    never a proposal. ``rows``: the mask selects rows (leading dims) of ``x``."""
    counted = count_at_once(ctx, sel)
    if counted is not None:
        return counted
    got = reduced_at_once(ctx, sel, rows=rows)
    if got is not None:
        return got
    by_name = reduced_by_name(ctx, sel, rows=rows)
    if isinstance(by_name, Rewrite):
        return by_name
    if isinstance(sel.node, cst.Subscript) or (
        isinstance(sel.node, cst.Call) and index_select(ctx, sel.node) is not None
    ):
        return flow.masked_flow(ctx, sel.node, mask=sel.m, stable=True)
    return by_name if by_name is not None else NoFix(NOT_REDUCED)


_AUG = {cst.AddAssign: "0", cst.SubtractAssign: "0", cst.MultiplyAssign: "1", cst.DivideAssign: "1"}


def augmented_write(ctx: FixContext, sel: Selection) -> Rewrite | None:
    """``x[m] += v`` (``-=``, ``*=``, ``/=``; ``v`` a number or a name) reads through the mask
    and breaks -> ``x += torch.where(m, v, 0)`` (``1`` for ``*=``/``/=``): the same in-place
    update of ``x``, a no-op where the mask is False."""
    aug = ctx.parent(sel.node)
    if not isinstance(aug, cst.AugAssign) or aug.target is not sel.node:
        return None
    if not isinstance(sel.node, cst.Subscript) or sel.x is not sel.node.value:
        return None  # a normalized selection: the mask does not broadcast over `x` as written
    fill = _AUG.get(type(aug.operator))
    v = aug.value
    if fill is None or not (number_expr(v) or isinstance(v, (cst.Name, cst.Attribute))):
        return None
    if side_effect(sel.x) is not None:
        return None
    new = aug.with_changes(
        target=sel.x,
        value=template(f"{ctx.torch()}.where(__m__, __v__, {fill})", m=sel.m, v=v),
    )
    return Rewrite(
        title=f"update in place through `torch.where(mask, v, {fill})` instead of reading "
        "through the mask",
        changes=[(aug, new)],
        imports=("torch",),
    )


def fix_selection(
    ctx: FixContext, sel: Selection, *, known_mask: bool = True
) -> Rewrite | Proposal | NoFix:
    """The rewrite of one selection: reduced at once, bound to a name used only in
    reductions, else the masking proposal. ``known_mask``: the static stage showed the index is
    a boolean mask (for an observed break's line, :func:`looks_like_mask` decides)."""
    shaped = structural.structural_selection(ctx, sel)
    if shaped is not None:
        return shaped
    if isinstance(sel.node, cst.Subscript) and sel.node.value is sel.x:
        count = count_rewrite(ctx, sel.node)
        if count is not None:
            return count
    if not known_mask and not looks_like_mask(ctx, sel.node, sel.m):
        return NoFix("the index is not known to be a boolean mask")
    counted = count_at_once(ctx, sel)
    if counted is not None:
        return counted
    aug = augmented_write(ctx, sel)
    if aug is not None:
        return aug
    lossed = loss_of_selections(ctx, sel)
    if lossed is not None:
        return lossed
    start = sel.node
    if isinstance(start, cst.Subscript):
        ce = flow.masked_cross_entropy(ctx, start)
        if ce is not None:
            return ce
    sel = widen(ctx, sel)
    got = reduced_at_once(ctx, sel)
    if got is not None:
        return got
    by_name = reduced_by_name(ctx, sel)
    if isinstance(by_name, Rewrite):
        return by_name
    why = by_name.reason if isinstance(by_name, NoFix) else NOT_REDUCED
    if isinstance(start, (cst.Subscript, cst.Call)):
        if isinstance(start, cst.Subscript) and (
            isinstance(start.value, cst.Subscript) and start.value is not sel.x
        ):
            start = start.value  # `x[m][:, :2]`: the flow starts at the selection `x[m]`
        followed = flow.masked_flow(ctx, start)
        if isinstance(followed, Rewrite):
            return followed
        why = followed.reason
    if known_mask and not looks_like_mask(ctx, sel.node, sel.m):
        return NoFix(why)
    returned = outputs.output_proposal(ctx, sel, why)
    if returned is not None:
        return returned
    out = structural.output_use(ctx, sel.node)
    if out is not None:
        why = f"{why}. {out}"
    if flow.FLOWS_ON in why:
        return proposal(ctx, sel, f"{why}. Masking (the patch shown) {_MASKING_MATCHES}")
    return proposal(ctx, sel, f"{why}; {_WHY_PROPOSED}")


# ---------------------------------------------------------------------------- guarded writes
def _any_of(ctx: FixContext, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """``m`` of ``m.any()``, ``torch.any(m)``, ``m.sum() > 0`` (``!= 0``, ``>= 1``)."""
    t = ctx.torch()
    if isinstance(test, cst.Call) and not any(a.keyword or a.star for a in test.args):
        f = test.func
        if isinstance(f, cst.Attribute) and f.attr.value == "any":
            if not test.args and not _is_name(ctx, f.value, t):
                return f.value
            if len(test.args) == 1 and _is_name(ctx, f.value, t):
                return test.args[0].value
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        c = test.comparisons[0]
        k = ctx.code(c.comparator).strip()
        ok = (isinstance(c.operator, (cst.GreaterThan, cst.NotEqual)) and k == "0") or (
            isinstance(c.operator, cst.GreaterThanEqual) and k == "1"
        )
        left = test.left
        if (
            ok
            and isinstance(left, cst.Call)
            and isinstance(left.func, cst.Attribute)
            and left.func.attr.value in ("sum", "count_nonzero")
            and not left.args
        ):
            return left.func.value
    return None


def _is_name(ctx: FixContext, e: cst.BaseExpression, text: str) -> bool:
    return ctx.code(e).strip() == text


def _masked_write(ctx: FixContext, st: cst.BaseSmallStatement, m: str) -> bool:
    """A write that changes nothing when the mask ``m`` (source text) is all False:
    ``x[m] = v``, ``x = x.masked_fill(m, v)``, ``x = torch.where(m, v, x)``,
    ``x.masked_fill_(m, v)``."""
    if isinstance(st, cst.Assign) and len(st.targets) == 1:
        if side_effect(st.value) is not None:
            return False
        tgt = st.targets[0].target
        if isinstance(tgt, cst.Subscript):
            s = subscript_selection(tgt)
            return s is not None and ctx.code(s.m).strip() == m and not _reads_through(st.value, m)
        if isinstance(tgt, cst.Name) and isinstance(st.value, cst.Call):
            v = st.value
            f = v.func
            args = [a.value for a in v.args if a.keyword is None and not a.star]
            if len(args) != len(v.args) or not isinstance(f, cst.Attribute):
                return False
            if f.attr.value == "masked_fill" and len(args) == 2:
                return ctx.code(f.value).strip() == tgt.value and ctx.code(args[0]).strip() == m
            if f.attr.value == "where" and _is_name(ctx, f.value, ctx.torch()) and len(args) == 3:
                return ctx.code(args[0]).strip() == m and ctx.code(args[2]).strip() == tgt.value
        return False
    if isinstance(st, cst.Expr) and isinstance(st.value, cst.Call):
        v = st.value
        f = v.func
        if isinstance(f, cst.Attribute) and f.attr.value == "masked_fill_" and len(v.args) == 2:
            rest = v.args[1].value
            return (
                ctx.code(v.args[0].value).strip() == m
                and side_effect(f.value) is None
                and side_effect(rest) is None
            )
    return False


def _reads_through(e: cst.BaseExpression, m: str) -> bool:
    """Whether ``e`` selects with the mask ``m`` (``y[m]``: a read that breaks by itself)."""
    found = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            s = subscript_selection(n)
            if s is not None and cst.Module([]).code_for_node(s.m).strip() == m:
                found.append(n)

    e.visit(V())
    return bool(found)


def guarded_masked_writes(ctx: FixContext, node: cst.If) -> Rewrite | None:
    """``if m.any(): x[m] = v`` (every statement a write through ``m``, no ``else``) -> the
    writes always: through an all-False mask they write nothing. None: not this shape."""
    if node.orelse is not None:
        return None
    m = _any_of(ctx, node.test)
    if m is None or side_effect(m) is not None:
        return None
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    lines = list(body.body)
    text = ctx.code(m).strip()
    for line in lines:
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        if not all(_masked_write(ctx, st, text) for st in line.body):
            return None
    comments = comments_in(node.test) + comments_in(body.header)
    first = lines[0].with_changes(
        leading_lines=[
            *node.leading_lines,
            *[cst.EmptyLine(indent=True, comment=c) for c in comments],
            *leading_lines(lines[0]),
        ]
    )
    return Rewrite(
        title="write through the mask always (`x[m] = v` with an all-False mask writes "
        "nothing), without the branch",
        changes=[(node, cst.FlattenSentinel([first, *lines[1:]]))],
    )
