"""Lengths read with ``.tolist()`` where a tensor of the lengths does the same job (CL105).

A batch padded to ``T`` steps carries one length per row, a 1-d int tensor ``lengths``. Code
that reads it back as Python ints to build a padding mask, to pool each row over its valid
steps, or to hand the lengths to a loss, breaks the graph at the ``.tolist()``; each of those
uses has a tensor form with static shapes that computes the same values::

    lens = lengths.tolist()
    mask = torch.stack([torch.arange(T) < n for n in lens])        # (B, T) bool
        -> mask = torch.arange(T) < lengths[:, None]
    pooled = torch.stack([h[i, :n].mean(0) for i, n in enumerate(lens)])
    pooled = torch.stack([x[:n].mean(dim=0) for x, n in zip(h, lens)])
        -> n_valid = torch.where(lengths < 0, lengths + h.shape[1], lengths).clamp(0, h.shape[1])
           pooled = torch.where(<arange < n_valid[:, None], shaped as h>, h, 0).sum(1)
                    / n_valid.reshape(<n_valid's shape, then 1 per trailing dim of h>)
    out_lens = [(n + 1) // 2 for n in feat_lens.tolist()]
    F.ctc_loss(log_probs, targets, out_lens, target_lens.tolist(), ...)
        -> out_lens = (feat_lens + 1) // 2
           F.ctc_loss(log_probs, targets, out_lens, target_lens, ...)

Why each is the same: the comparison of ``arange`` with each length, stacked, is the
comparison broadcast against the lengths as a column. The slice ``[:n]`` keeps the first
``n`` steps, ``T + n`` of them for a negative ``n``, all of them for ``n >= T``: ``n_valid`` is
that count, so the masked sum is the slice's sum (the same terms, in another order: equal up
to float rounding) and the division its mean (an empty slice's mean is ``0 / 0``, NaN, in
both); the gradient of each step is the slice's (``torch.where`` sends none to the masked
steps). ``ctc_loss`` takes its ``input_lengths``/``target_lengths`` as a list of ints or as a
tensor of them; the comprehension's arithmetic (``+ - * // %`` with int literals) is the same
on an int64 tensor (``//`` floors, as Python's does). ``ctc_loss`` itself still breaks the
graph on torch 2.13 (an operator whose output shape depends on data): the ``.tolist()`` breaks
go, that one stays.

Required, or no rewrite: the list (``E.tolist()`` inline, or a name bound once to it) is read
only in such places: the iterable of a one-``for`` comprehension without ``if`` passed alone to
``torch.stack`` (dim 0), whose element is a comparison of a ``torch.arange(...)`` with the
length, or ``sum``/``mean`` over dim 0 of ``X[i, :n]`` (``for i, n in enumerate(lens)``) or of
``x[:n]`` (``for x, n in zip(X, lens)``), ``X`` a name (or attribute) bound once; or a length
argument of ``ctc_loss``, directly or through a name bound once to such a comprehension. The
rows of ``X`` are taken to be one per length (``enumerate`` reads ``X[i]`` for each length;
``zip`` stops at the shorter): the verifier compares the outputs on the spec's inputs.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.appends import filled_list, sole_append
from compilelint.fix.codemods.base import atom, bound_names, name_nodes, template
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

_CMP = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_CTC_KW = {"input_lengths": 2, "target_lengths": 3}


def lengths_rewrite(ctx: FixContext, tolist: cst.Call) -> Rewrite | None:
    """The rewrite of ``E.tolist()`` whose every read is a mask, a pooled row or a length
    argument of ``ctc_loss`` (the module's doc), or None."""
    fn = ctx.function(tolist)
    if fn is None or not isinstance(tolist.func, cst.Attribute):
        return None
    src = tolist.func.value
    bound = bound_names(fn)
    named = _named(ctx, fn, tolist, bound)
    uses: list[cst.BaseExpression] = [tolist] if named is None else list(named[1])
    if named is None and not _pure(src, fn, bound):
        return None
    lens: cst.BaseExpression = src
    changes: list[tuple[cst.CSTNode, object]] = []
    if named is not None:
        stmt, _ = named
        if _pure(src, fn, bound):
            changes.append((stmt, cst.RemoveFromParent()))
        else:
            fresh = ctx.fresh_name(f"{_target(stmt)}_t")
            lens = cst.Name(fresh)
            changes.append((stmt, _assign(fresh, src, stmt)))
    lens = lens.with_changes(lpar=[], rpar=[]) if isinstance(lens, cst.Name) else lens
    by_stmt: dict[int, tuple[cst.BaseStatement, list[tuple[cst.CSTNode, cst.CSTNode]]]] = {}
    pre: dict[int, list[cst.BaseStatement]] = {}
    kinds: set[str] = set()
    for use in uses:
        got = _use(ctx, fn, bound, use, lens)
        if got is None:
            return None
        edits, kind = got
        kinds.add(kind)
        for old, new, before in edits:
            if isinstance(new, cst.RemovalSentinel):
                changes.append((old, new))
                continue
            if isinstance(old, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                changes.append((old, cst.FlattenSentinel([*before, new])))  # type: ignore[list-item]
                continue
            anchor = ctx.statement(old)
            if anchor is None or (named is not None and anchor is named[0]):
                return None
            by_stmt.setdefault(id(anchor), (anchor, []))[1].append((old, new))
            pre.setdefault(id(anchor), []).extend(before)
    for key, (anchor, swaps) in by_stmt.items():
        new_stmt = _swap_nodes(anchor, swaps)
        if pre[key]:
            changes.append((anchor, cst.FlattenSentinel([*pre[key], new_stmt])))
        else:
            changes.append((anchor, new_stmt))
    what = {
        "mask": "the mask compares `arange` with the lengths as a column",
        "pool": "each row pooled over its valid steps with a mask (`torch.where(m, x, 0).sum(1)`)",
        "loss": "each row's loss over its valid steps with a mask (a masked sum over the count)",
        "ctc": "`ctc_loss` takes the lengths as a tensor",
    }
    return Rewrite(
        title=(
            f"keep the lengths `{ctx.code(src).strip()}` a tensor: "
            + "; ".join(what[k] for k in ("mask", "pool", "loss", "ctc") if k in kinds)
            + ": static shapes, no `.tolist()`"
        ),
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


Edit = tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel, list[cst.BaseStatement]]


def _use(
    ctx: FixContext,
    fn: cst.FunctionDef,
    bound: dict[str, list[cst.CSTNode]],
    use: cst.BaseExpression,
    lens: cst.BaseExpression,
) -> tuple[list[Edit], str] | None:
    """The edits (the node to replace, its replacement, statements to put before it) for one
    read of the list, and their kind, or None."""
    if _ctc_arg(ctx, use):
        return [(use, lens, [])], "ctc"
    par = ctx.parent(use)
    # enumerate(lens) / zip(X, lens)
    wrap: str | None = None
    other: cst.BaseExpression | None = None
    it: cst.CSTNode = use
    if isinstance(par, cst.Arg) and par.keyword is None and par.star == "":
        call = ctx.parent(par)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
            if call.func.value == "enumerate" and len(call.args) == 1:
                wrap, it = "enumerate", call
            elif call.func.value == "zip" and len(call.args) == 2 and call.args[1] is par:
                if call.args[0].keyword is None and call.args[0].star == "":
                    wrap, it, other = "zip", call, call.args[0].value
    holder = ctx.parent(it)
    if isinstance(holder, cst.For) and holder.iter is it and wrap is not None:
        return _loop(ctx, fn, bound, holder, wrap, other, lens)
    comp_for = holder
    if not (
        isinstance(comp_for, cst.CompFor)
        and comp_for.iter is it
        and not comp_for.ifs
        and comp_for.inner_for_in is None
        and comp_for.asynchronous is None
    ):
        return None
    comp = ctx.parent(comp_for)
    if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)):
        return None
    stack = _stack_of(ctx, comp)
    if stack is None:
        mapped = _mapped(ctx, fn, bound, use, comp_for, lens) if wrap is None else None
        return ([(mapped[0], mapped[1], [])], "ctc") if mapped is not None else None
    names = _names(comp_for.target, wrap)
    if names is None:
        return None
    n, row = names
    elt = comp.elt
    mask = _mask_elt(ctx, elt, n, {n} | ({row} if row else set()), lens)
    if mask is not None:
        return [(stack, mask, [])], "mask"
    if row is None:
        return None
    got = _row_total(ctx, elt, n, row, wrap, other, lens)
    if got is None:
        return None
    before, total, kind = got
    return [(stack, total.with_changes(lpar=stack.lpar, rpar=stack.rpar), before)], kind


def _names(target: cst.BaseExpression, wrap: str | None) -> tuple[str, str | None] | None:
    """(the length's name, the row's or index's name) bound by the loop's target."""
    if wrap is None:
        return (target.value, None) if isinstance(target, cst.Name) else None
    if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
        return None
    a, b = (e.value for e in target.elements)
    if not (isinstance(a, cst.Name) and isinstance(b, cst.Name)) or a.value == b.value:
        return None
    return b.value, a.value


def _row_total(
    ctx: FixContext,
    elt: cst.BaseExpression,
    n: str,
    row: str,
    wrap: str | None,
    other: cst.BaseExpression | None,
    lens: cst.BaseExpression,
) -> tuple[list[cst.BaseStatement], cst.BaseExpression, str] | None:
    """(statements binding the valid counts, the stacked rows' value, the kind) for a row
    element ``X[i, :n].mean(0)`` / ``x[:n].sum(0)`` / ``F.l1_loss(A[i, :n], B[i, :n])``."""
    t = ctx.torch()
    nv = ctx.fresh_name("n_valid", reserve=False)
    pooled = _pooled_src(elt, n, row, wrap, other)
    loss = _loss_src(ctx, elt, n, row) if wrap == "enumerate" else None
    if pooled is not None and _plain(pooled[0]):
        xs, kind = pooled
    elif loss is not None:
        xs, kind = loss[0], loss[2]
    else:
        return None
    ctx.fresh_name("n_valid")
    before: list[cst.BaseStatement] = [
        _fill(
            cst.parse_statement(
                f"{nv} = {t}.where(__L__ < 0, __L__ + __X__.shape[1], __L__)"
                ".clamp(0, __X__.shape[1]).to(__X__.device)\n"
            ),
            L=lens,
            X=xs,
        )
    ]
    valid = (
        f"({t}.arange(__X__.shape[1], device=__X__.device) < {nv}[:, None])"
        f".reshape({nv}.shape + (__X__.shape[1],) + (1,) * (__X__.dim() - 2))"
    )
    if loss is not None and pooled is None:
        a, b, kind = loss
        term = "(__A__ - __B__).abs()" if kind == "l1" else "(__A__ - __B__).pow(2)"
        total = template(
            f"{t}.where({valid}, {term}, 0).flatten(1).sum(1) / ({nv} * __X__.shape[2:].numel())",
            X=a,
            A=a,
            B=b,
        )
        return before, total, "loss"
    total = template(f"{t}.where({valid}, __X__, 0).sum(1)", X=xs)
    if kind == "mean":
        total = template(
            f"__s__ / {nv}.reshape({nv}.shape + (1,) * (__X__.dim() - 2))", s=total, X=xs
        )
    return before, total, "pool"


def _loss_src(
    ctx: FixContext, elt: cst.BaseExpression, n: str, row: str
) -> tuple[cst.BaseExpression, cst.BaseExpression, str] | None:
    """(``A``, ``B``, ``l1``/``mse``) for ``F.l1_loss(A[i, :n], B[i, :n])`` (``mse_loss``; no
    argument but the two, or ``reduction="mean"``), else None."""
    if not (
        isinstance(elt, cst.Call)
        and isinstance(elt.func, cst.Attribute)
        and elt.func.attr.value in ("l1_loss", "mse_loss")
        and ctx.foreign_module(elt.func.value) is None
    ):
        return None
    pos = [a for a in elt.args if a.keyword is None and a.star == ""]
    rest = [a for a in elt.args if a.keyword is not None]
    if len(pos) != 2 or len(pos) + len(rest) != len(elt.args):
        return None
    for a in rest:
        if not (
            a.keyword is not None
            and a.keyword.value == "reduction"
            and isinstance(a.value, cst.SimpleString)
            and a.value.evaluated_value == "mean"
        ):
            return None
    xs = [_row_slice(p.value, n, row) for p in pos]
    if xs[0] is None or xs[1] is None:
        return None
    return xs[0], xs[1], "l1" if elt.func.attr.value == "l1_loss" else "mse"


def _row_slice(e: cst.BaseExpression, n: str, row: str) -> cst.BaseExpression | None:
    """``X`` for ``X[i, :n]`` (``X`` a name or attribute not reading ``i``/``n``), else None."""
    if not isinstance(e, cst.Subscript) or len(e.slice) != 2:
        return None
    first, cut = e.slice[0].slice, e.slice[1].slice
    if not (
        isinstance(first, cst.Index)
        and isinstance(first.value, cst.Name)
        and first.value.value == row
        and isinstance(cut, cst.Slice)
        and cut.lower is None
        and cut.step is None
        and isinstance(cut.upper, cst.Name)
        and cut.upper.value == n
    ):
        return None
    x = e.value
    if not _plain(x) or {row, n} & {m.value for m in name_nodes(x)}:
        return None
    return x


def _loop(
    ctx: FixContext,
    fn: cst.FunctionDef,
    bound: dict[str, list[cst.CSTNode]],
    loop: cst.For,
    wrap: str,
    other: cst.BaseExpression | None,
    lens: cst.BaseExpression,
) -> tuple[list[Edit], str] | None:
    """``L = []`` / ``for i, n in enumerate(lens): L.append(<row element>)`` / ``torch.stack(L)``
    read once: ``L = <the rows' value>`` at the loop, ``torch.stack(L)`` -> ``L``."""
    if loop.orelse is not None or loop.asynchronous is not None:
        return None
    names = _names(loop.target, wrap)
    got_append = sole_append(loop)
    if names is None or names[1] is None or got_append is None:
        return None
    call, lst = got_append
    filled = filled_list(ctx, fn, loop, lst)
    if filled is None:
        return None
    empty, read = filled
    arg = ctx.parent(read)
    stack = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (
        isinstance(arg, cst.Arg) and isinstance(stack, cst.Call) and _stack_of(ctx, read) is stack
    ):
        return None
    n, row = names
    if row is None:
        return None
    got = _row_total(ctx, call.args[0].value, n, row, wrap, other, lens)
    if got is None:
        return None
    before, total, kind = got
    st = loop.body.body[0]  # type: ignore[attr-defined]
    assign = st.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(lst))], total)])
    assign = assign.with_changes(leading_lines=loop.leading_lines)
    return [
        (empty, cst.RemoveFromParent(), []),
        (loop, assign, before),
        (stack, cst.Name(lst).with_changes(lpar=stack.lpar, rpar=stack.rpar), []),
    ], kind


def _mapped(
    ctx: FixContext,
    fn: cst.FunctionDef,
    bound: dict[str, list[cst.CSTNode]],
    use: cst.BaseExpression,
    comp_for: cst.CSTNode | None,
    lens: cst.BaseExpression,
) -> tuple[cst.CSTNode, cst.CSTNode, list[cst.BaseStatement], str] | None:
    """``name = [(n + 1) // 2 for n in lens]`` whose name is read only as ``ctc_loss``'s
    lengths: the comprehension -> ``(lens + 1) // 2``."""
    if not (
        isinstance(comp_for, cst.CompFor)
        and comp_for.iter is use
        and not comp_for.ifs
        and comp_for.inner_for_in is None
        and isinstance(comp_for.target, cst.Name)
    ):
        return None
    comp = ctx.parent(comp_for)
    if not isinstance(comp, cst.ListComp):
        return None
    n = comp_for.target.value
    if not _int_arith(comp.elt, n):
        return None
    named = _named(ctx, fn, comp, bound)
    if named is None or not all(_ctc_arg(ctx, r) for r in named[1]):
        return None
    new = comp.elt.visit(_Rename(n, atom(lens)))
    if not isinstance(new, cst.BaseExpression):
        return None
    return comp, new.with_changes(lpar=[], rpar=[]), [], "ctc"


def _int_arith(e: cst.BaseExpression, n: str) -> bool:
    """Is ``e`` arithmetic (``+ - * // %``) of the name ``n`` and int literals, reading ``n``?"""
    if isinstance(e, cst.Name):
        return e.value == n
    if isinstance(e, cst.Integer):
        return True
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, _ARITH):
        return _int_arith(e.left, n) and _int_arith(e.right, n) and bool(name_nodes(e, n))
    return False


def _ctc_arg(ctx: FixContext, e: cst.CSTNode) -> bool:
    """Is ``e`` the ``input_lengths``/``target_lengths`` argument of a ``ctc_loss`` call?"""
    arg = ctx.parent(e)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and arg.star == ""):
        return False
    f = call.func
    if not (isinstance(f, cst.Attribute) and f.attr.value == "ctc_loss"):
        return False
    if ctx.foreign_module(f.value) is not None:
        return False
    if arg.keyword is not None:
        return arg.keyword.value in _CTC_KW
    pos = [a for a in call.args if a.keyword is None]
    return pos.index(arg) in (2, 3) and all(a.star == "" for a in pos[:4])


def _stack_of(ctx: FixContext, comp: cst.CSTNode) -> cst.Call | None:
    """The ``torch.stack(comp)`` (dim 0) taking the comprehension alone, or None."""
    arg = ctx.parent(comp)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (
        isinstance(arg, cst.Arg)
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "stack"
        and call.args
        and call.args[0] is arg
        and arg.keyword is None
    ):
        return None
    if ctx.foreign_module(call.func.value) is not None:
        return None
    for a in call.args[1:]:
        if a.keyword is not None and a.keyword.value != "dim":
            return None
        if not (isinstance(a.value, cst.Integer) and a.value.value == "0"):
            return None
    return call


def _mask_elt(
    ctx: FixContext, elt: cst.BaseExpression, n: str, loop: set[str], lens: cst.BaseExpression
) -> cst.BaseExpression | None:
    """``torch.arange(...) < n`` (any of ``< <= > >=``, either side) -> ``arange < lens[:, None]``."""
    if not (isinstance(elt, cst.Comparison) and len(elt.comparisons) == 1):
        return None
    op = elt.comparisons[0].operator
    if not isinstance(op, _CMP):
        return None
    left, right = elt.left, elt.comparisons[0].comparator
    col = template("__L__[:, None]", L=atom(lens))
    if isinstance(right, cst.Name) and right.value == n and _arange(ctx, left, loop):
        return elt.with_changes(
            left=_on_device(left, lens),  # type: ignore[arg-type]
            comparisons=[elt.comparisons[0].with_changes(comparator=col)],
        )
    if isinstance(left, cst.Name) and left.value == n and _arange(ctx, right, loop):
        return elt.with_changes(
            left=col,
            comparisons=[elt.comparisons[0].with_changes(comparator=_on_device(right, lens))],  # type: ignore[arg-type]
        )
    return None


def _on_device(arange: cst.Call, lens: cst.BaseExpression) -> cst.Call:
    """``torch.arange(T)`` made on the lengths' device (``device=lengths.device``) when it
    names none: compared with the lengths, a tensor on another device raises (the original
    compared with Python ints; a mask on the CPU while the lengths are on an accelerator
    would not have worked with the data either)."""
    if any(a.keyword is not None and a.keyword.value == "device" for a in arange.args):
        return arange
    dev = cst.Arg(
        template("__L__.device", L=atom(lens)),
        keyword=cst.Name("device"),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    args = list(arange.args)
    if args:
        args[-1] = args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
    return arange.with_changes(args=[*args, dev])


def _arange(ctx: FixContext, e: cst.BaseExpression, loop: set[str]) -> bool:
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "arange"
        and ctx.foreign_module(e.func.value) is None
        and not (loop & {m.value for m in name_nodes(e)})
    )


def _pooled_src(
    elt: cst.BaseExpression, n: str, row: str, wrap: str | None, other: cst.BaseExpression | None
) -> tuple[cst.BaseExpression, str] | None:
    """(``X``, ``sum``/``mean``) for ``X[i, :n].mean(0)`` (enumerate) or ``x[:n].sum(dim=0)``
    (zip over ``X``), else None."""
    if not (
        isinstance(elt, cst.Call)
        and isinstance(elt.func, cst.Attribute)
        and elt.func.attr.value in ("sum", "mean")
        and len(elt.args) == 1
        and (elt.args[0].keyword is None or elt.args[0].keyword.value == "dim")
    ):
        return None
    a = elt.args[0].value
    if not (isinstance(a, cst.Integer) and a.value == "0"):
        return None
    sub = elt.func.value  # type: ignore[attr-defined]
    if not isinstance(sub, cst.Subscript):
        return None
    els = [s.slice for s in sub.slice]
    cut = els[-1]
    if not (
        isinstance(cut, cst.Slice)
        and cut.lower is None
        and cut.step is None
        and isinstance(cut.upper, cst.Name)
        and cut.upper.value == n
    ):
        return None
    if wrap == "enumerate":
        if not (
            len(els) == 2
            and isinstance(els[0], cst.Index)
            and isinstance(els[0].value, cst.Name)
            and els[0].value.value == row
        ):
            return None
        x = sub.value
    elif wrap == "zip" and other is not None:
        if not (len(els) == 1 and isinstance(sub.value, cst.Name) and sub.value.value == row):
            return None
        x = other
    else:
        return None
    if {row, n} & {m.value for m in name_nodes(x)}:
        return None
    return x, elt.func.attr.value  # type: ignore[attr-defined]


def _pure(e: cst.BaseExpression, fn: cst.FunctionDef, bound: dict[str, list[cst.CSTNode]]) -> bool:
    """A name (or attribute of one) bound at most once in ``fn`` (a parameter, or one
    assignment): reading it again reads the same value."""
    while isinstance(e, cst.Attribute):
        e = e.value
    if not isinstance(e, cst.Name):
        return False
    params = {p.name.value for p in _params(fn)}
    return len(bound.get(e.value, [])) + (e.value in params) <= 1


def _plain(e: cst.BaseExpression) -> bool:
    """A name or an attribute of one: read again in the same statement, the same value."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _params(fn: cst.FunctionDef) -> list[cst.Param]:
    ps = fn.params
    star = [ps.star_arg] if isinstance(ps.star_arg, cst.Param) else []
    kw = [ps.star_kwarg] if ps.star_kwarg is not None else []
    return [*ps.posonly_params, *ps.params, *star, *ps.kwonly_params, *kw]


def _named(
    ctx: FixContext, fn: cst.FunctionDef, value: cst.CSTNode, bound: dict[str, list[cst.CSTNode]]
) -> tuple[cst.SimpleStatementLine, list[cst.Name]] | None:
    """(``name = value``, the reads of ``name``) when ``value`` is the whole value of a plain
    assignment to a name bound only there, else None."""
    a = ctx.parent(value)
    st = ctx.parent(a) if isinstance(a, cst.Assign) else None
    if not (
        isinstance(a, cst.Assign)
        and a.value is value
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
        and isinstance(st, cst.SimpleStatementLine)
        and len(st.body) == 1
        and ctx.parent(st) is not None
    ):
        return None
    name = a.targets[0].target.value
    if len(bound.get(name, [])) != 1 or name in {p.name.value for p in _params(fn)}:
        return None
    reads = name_nodes(fn.body, name, reads_only=True)
    if not reads:
        return None
    return st, reads


def _target(stmt: cst.SimpleStatementLine) -> str:
    return stmt.body[0].targets[0].target.value  # type: ignore[attr-defined, no-any-return]


def _assign(
    name: str, value: cst.BaseExpression, like: cst.SimpleStatementLine
) -> cst.SimpleStatementLine:
    return like.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


class _Rename(cst.CSTTransformer):
    def __init__(self, name: str, to: cst.BaseExpression) -> None:
        self.name, self.to = name, to

    def leave_Name(self, o: cst.Name, u: cst.Name) -> cst.BaseExpression:
        return self.to if o.value == self.name else u


def _fill(stmt: cst.BaseStatement, **nodes: cst.CSTNode) -> cst.BaseStatement:
    class T(cst.CSTTransformer):
        def leave_Name(self, o: cst.Name, u: cst.Name) -> cst.BaseExpression:
            v = o.value
            if v.startswith("__") and v.endswith("__") and v[2:-2] in nodes:
                return nodes[v[2:-2]]  # type: ignore[return-value]
            return u

    return stmt.visit(T())  # type: ignore[return-value]


def _swap_nodes(
    tree: cst.BaseStatement, swaps: list[tuple[cst.CSTNode, cst.CSTNode]]
) -> cst.BaseStatement:
    """``tree`` with each ``old`` node (by identity) replaced by its ``new``."""
    table = {id(o): n for o, n in swaps}

    class T(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return table.get(id(o), u)

    return tree.visit(T())  # type: ignore[return-value]
