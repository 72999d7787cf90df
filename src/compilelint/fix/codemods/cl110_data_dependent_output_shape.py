"""CL110: data-dependent output shapes the code does not need.

- ``torch.masked_select(x, m)`` / ``x.masked_select(m)``: as the boolean-mask selection
  ``x[m]`` (:mod:`compilelint.fix.codemods.masks`): reduced at once or through a name used only
  in reductions -> ``torch.where(m, x, 0)`` with masked reductions; otherwise a proposal.
- indices of a mask used only to assign through: ``(i,) = torch.where(m)``,
  ``i = m.nonzero(as_tuple=True)[0]``, ``i = m.nonzero().squeeze(1)``, ``ij = torch.where(m)``
  ... ``x[i] = v`` -> ``x[m] = v`` (the index statement goes; a masked assignment is traced
  as ``index_put_`` without a break). The positions are the same, in the same order;
  ``[0]``/``squeeze`` forms assume a one-dimensional mask (the verifier checks the outputs).
- ``torch.bincount(i, minlength=n)`` -> ``torch.zeros(n, dtype=torch.long,
  device=i.device).index_add_(0, i, torch.ones_like(i, dtype=torch.long))``: the same counts whenever every
  index is below ``n`` (else it raises instead of growing the output).
- the first/last True of a mask: ``m.nonzero()[0]`` / ``m.nonzero()[-1]`` ->
  ``torch.stack(torch.unravel_index(m.flatten().long()[.cumsum(0)].argmax(), m.shape))``
  (the same coordinates whenever ``m`` has a True); ``m.nonzero()[:, -1]`` is proposed as
  ``m.long().argmax(-1)`` (equal only with exactly one True per row).
"""

from __future__ import annotations

import dataclasses
from typing import cast

import libcst as cst

from compilelint.fix.codemods import flow, masks, moe
from compilelint.fix.codemods.base import (
    Codemod,
    atom,
    bound_names,
    last_name,
    name_nodes,
    side_effect,
    template,
)
from compilelint.fix.codemods.classes import unique_index, unique_loop
from compilelint.fix.codemods.counted import counted as count_rewrite
from compilelint.fix.codemods.numpy_calls import numpy_to_torch
from compilelint.fix.codemods.selection import index_reads, masked_select
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding
from compilelint.static.checks.cl111_boolean_mask_indexing import BOOL_METHODS

_SHAPE_OPS = frozenset(
    {"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "bincount", "where"}
)
_FLATTEN_1D = {"squeeze": ("1", "-1"), "view": ("-1",), "reshape": ("-1",), "flatten": ()}


class DataDependentShape(Codemod):
    CODE = "CL110"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the call was not found in the file")
        call = calls[0]
        if isinstance(call.func, cst.Attribute):
            mod = ctx.foreign_module(call.func.value)
            if mod == "numpy":
                return numpy_to_torch(ctx, call)
            if mod is not None:
                return NoFix(f"`{ctx.code(call.func).strip()}` is {mod}'s, not a tensor method")
        dense = moe.dense_dispatch(ctx, call)
        if dense is not None:
            return dense
        for c in [call, *ctx.on_line(ctx.span(call)[0], cst.Call)]:
            if _attr(c) in ("nonzero", "argwhere", "unique"):
                count = count_rewrite(ctx, c)
                if count is not None:
                    return count
        sel = masked_select(ctx, call)
        if sel is not None:
            return masks.fix_selection(ctx, sel)
        mask = _mask_of_indices(ctx, call)
        if mask is not None:
            return _indices_to_mask(ctx, call, mask)
        if _attr(call) == "bincount":
            counted = selections_counted(ctx, call)
            return counted if counted is not None else _bincount(ctx, call)
        if _attr(call) == "unique":
            looped = unique_loop(ctx, call) or unique_index(ctx, call)
            if looped is not None:
                return looped
        if _attr(call) == "repeat_interleave":
            return NoFix("`repeat_interleave` needs `output_size=` (a number the data decides)")
        name = ctx.code(call.func).strip()
        if _attr(call) not in _SHAPE_OPS:
            return NoFix(
                f"the data-dependent shape arises inside `{name}(...)`, a call made from this "
                "line: no rewrite of this line keeps it static"
            )
        return NoFix(
            f"`{name}` gives a data-dependent shape that the following code uses; no rewrite "
            "keeps it static"
        )


def _attr(call: cst.Call) -> str:
    return last_name(call.func)


def _is_torch(ctx: FixContext, e: cst.BaseExpression) -> bool:
    return ctx.code(e).strip() == ctx.torch()


def _mask_of_indices(ctx: FixContext, call: cst.Call) -> cst.BaseExpression | None:
    """``m`` of ``torch.where(m)``, ``torch.nonzero(m, as_tuple=True)``, ``m.nonzero(...)``,
    ``torch.nonzero(m)``, ``m.nonzero()``."""
    f = call.func
    if not isinstance(f, cst.Attribute) or any(a.star for a in call.args):
        return None
    pos = [a.value for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if set(kw) - {"as_tuple"}:
        return None
    if f.attr.value == "where" and _is_torch(ctx, f.value) and len(pos) == 1 and not kw:
        return pos[0]
    if f.attr.value == "argwhere" and kw:
        return None
    if f.attr.value in ("nonzero", "argwhere"):  # `argwhere(m)` is `nonzero(m)`
        if _is_torch(ctx, f.value):
            return pos[0] if len(pos) == 1 else None
        return f.value if not pos else None
    return None


def _tuple_form(call: cst.Call) -> bool:
    """Whether the call returns a tuple of index tensors (``where``, ``as_tuple=True``)."""
    if _attr(call) == "where":
        return True
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "as_tuple":
            return isinstance(a.value, cst.Name) and a.value.value == "True"
    return False


def _one_dim_index(ctx: FixContext, call: cst.Call) -> cst.BaseExpression | None:
    """The expression that makes the indices of a 1-D mask from ``call``: ``where(m)[0]``,
    ``m.nonzero(as_tuple=True)[0]``, ``m.nonzero().squeeze(1)`` / ``.view(-1)`` /
    ``.flatten()`` / ``[:, 0]``."""
    p = ctx.parent(call)
    if _tuple_form(call):
        if isinstance(p, cst.Subscript) and p.value is call:
            s = masks.subscript_selection(p)
            if s is not None and isinstance(s.m, cst.Integer) and s.m.value == "0":
                return p
        return None
    if isinstance(p, cst.Attribute) and p.value is call and p.attr.value in _FLATTEN_1D:
        c = ctx.parent(p)
        if isinstance(c, cst.Call) and c.func is p:
            want = _FLATTEN_1D[p.attr.value]
            args = [ctx.code(a.value).strip() for a in c.args]
            if (not want and not args) or (len(args) == 1 and args[0] in want):
                return c
    if isinstance(p, cst.Subscript) and p.value is call and len(p.slice) == 2:
        a, b = (e.slice for e in p.slice)
        if (
            isinstance(a, cst.Slice)
            and a.lower is None
            and a.upper is None
            and isinstance(b, cst.Index)
            and isinstance(b.value, cst.Integer)
            and b.value.value == "0"
        ):
            return p
    return None


def _store_index(ctx: FixContext, e: cst.CSTNode) -> cst.Subscript | None:
    """The subscript ``x[e]`` when ``e`` is its only index and it is the target of a plain
    assignment (``x[e] = v``)."""
    el = ctx.parent(e)
    if not isinstance(el, cst.Index):
        return None
    se = ctx.parent(el)
    sub = ctx.parent(se) if se is not None else None
    if not isinstance(sub, cst.Subscript) or len(sub.slice) != 1:
        return None
    tgt = ctx.parent(sub)
    if isinstance(tgt, cst.AssignTarget) and tgt.target is sub:
        return sub
    return None


def _end_row(ctx: FixContext, call: cst.Call) -> tuple[cst.Subscript, str] | None:
    """``m.nonzero()[0]`` / ``m.nonzero()[-1]`` (``torch.nonzero(m)`` too): the subscript
    and which end, "first" or "last"."""
    p = ctx.parent(call)
    if _tuple_form(call) or not isinstance(p, cst.Subscript) or p.value is not call:
        return None
    if len(p.slice) == 2 and _int_index(p.slice[1]) is None:
        return None  # `[0, j]`: one coordinate of that True (taken after the rewrite)
    if len(p.slice) not in (1, 2) or not isinstance(p.slice[0].slice, cst.Index):
        return None
    i = p.slice[0].slice.value
    if isinstance(i, cst.Integer) and i.value == "0":
        return p, "first"
    if (
        isinstance(i, cst.UnaryOperation)
        and isinstance(i.operator, cst.Minus)
        and isinstance(i.expression, cst.Integer)
        and i.expression.value == "1"
    ):
        return p, "last"
    return None


def _last_column(ctx: FixContext, call: cst.Call) -> cst.Subscript | None:
    """``m.nonzero()[:, -1]``: the last coordinate of every True."""
    p = ctx.parent(call)
    if _tuple_form(call) or not isinstance(p, cst.Subscript) or p.value is not call:
        return None
    if len(p.slice) != 2:
        return None
    a, b = (e.slice for e in p.slice)
    if not (isinstance(a, cst.Slice) and a.lower is None and a.upper is None and a.step is None):
        return None
    if (
        isinstance(b, cst.Index)
        and isinstance(b.value, cst.UnaryOperation)
        and isinstance(b.value.operator, cst.Minus)
        and isinstance(b.value.expression, cst.Integer)
        and b.value.expression.value == "1"
    ):
        return p
    return None


def _end_index(
    ctx: FixContext, sub: cst.Subscript, end: str, m: cst.BaseExpression
) -> Rewrite | NoFix:
    """``m.nonzero()[-1]`` (the position of the last True, one coordinate per dimension of
    ``m``) -> ``torch.stack(torch.unravel_index(m.flatten().long().cumsum(0).argmax(),
    m.shape))``: the running count of True reaches its maximum first at the last True, and
    ``argmax`` returns the first maximum. ``[0]`` (the first True) is ``argmax`` of the mask
    itself. Same values, dtype (int64) and shape (``(m.dim(),)``) whenever ``m`` has a True;
    with none the original raises an IndexError and the rewrite gives zeros."""
    eff = side_effect(m)
    if eff is not None:
        return NoFix(f"`{ctx.code(eff).strip()}` in the mask has a side effect")
    t = ctx.torch()
    stmt = ctx.statement(sub)
    hoist = not isinstance(m, (cst.Name, cst.Attribute))
    scoped = any(
        isinstance(a, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))
        for a in ctx.ancestors(sub)
        if stmt is not None and any(b is stmt for b in ctx.ancestors(a))
    )
    if hoist and (
        not isinstance(stmt, cst.SimpleStatementLine)
        or not isinstance(ctx.parent(stmt), cst.IndentedBlock)
        or scoped
        or len(stmt.body) != 1
    ):
        hoist = False
    mask: cst.BaseExpression = m
    name = ""
    if hoist:
        name = ctx.fresh_name("mask")
        mask = cst.Name(name)
    # `nonzero` counts every element that is not zero: a mask of other values is made one
    is_bool = isinstance(m, cst.Comparison) or (
        isinstance(m, cst.Call)
        and isinstance(m.func, cst.Attribute)
        and m.func.attr.value in BOOL_METHODS
    )
    counts = (
        "__m__.flatten()"
        + ("" if is_bool else ".bool()")
        + ".long()"
        + (".cumsum(0)" if end == "last" else "")
    )
    new = template(f"{t}.stack({t}.unravel_index({counts}.argmax(), __m__.shape))", m=atom(mask))
    if len(sub.slice) == 2:  # `m.nonzero()[-1, j]`: its coordinate j
        new = cst.Subscript(
            value=new, slice=[sub.slice[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
    title = (
        f"the {end} True position without `nonzero()`: "
        + (
            "`argmax` of the running count of the mask (its first maximum is the last True)"
            if end == "last"
            else "`argmax` of the mask (the first True)"
        )
        + ", as coordinates with `torch.unravel_index` (zeros where the mask has no True, "
        "where the original raised)"
    )
    if not hoist:
        rw = Rewrite(title=title, changes=[(sub, new)], imports=("torch",))
        return _reading_index(ctx, sub, rw) if len(sub.slice) == 2 else rw
    assert isinstance(stmt, cst.SimpleStatementLine)
    line = cst.SimpleStatementLine(
        body=[cst.Assign([cst.AssignTarget(cst.Name(name))], m.with_changes(lpar=[], rpar=[]))],
        leading_lines=stmt.leading_lines,
    )
    fixed = stmt.deep_replace(sub, new).with_changes(leading_lines=[])  # type: ignore[arg-type]
    rw = Rewrite(
        title=title, changes=[(stmt, cst.FlattenSentinel([line, fixed]))], imports=("torch",)
    )
    return _reading_index(ctx, sub, rw) if len(sub.slice) == 2 else rw


def _indices_to_mask(
    ctx: FixContext, call: cst.Call, m: cst.BaseExpression
) -> Rewrite | Proposal | NoFix:
    col_end = _column_extreme(ctx, call, m)  # `[:, 0].min()` before `[:, 0]` as a 1-d index
    if col_end is not None:
        return col_end
    expr: cst.BaseExpression = _one_dim_index(ctx, call) or call
    end = _end_row(ctx, call) if expr is call else None
    if end is not None:
        return _end_index(ctx, end[0], end[1], m)
    col = _last_column(ctx, call) if expr is call else None
    if col is not None:
        new = template("__m__.long().argmax(-1)", m=atom(m))
        return Proposal(
            "the column of each row's True with `argmax` over the last dimension, without "
            "`nonzero()`",
            [(col, new)],
            "`m.nonzero()[:, -1]` has one entry per True of the mask: it equals "
            "`m.long().argmax(-1)` (one per row) only when every row of a two-dimensional mask "
            "holds exactly one True (one EOS token per row), which the code does not show",
        )
    extreme = flow.nonzero_extreme(ctx, call, m) if expr is call else None
    if extreme is not None:
        return _reading_index(ctx, extreme.changes[0][0], extreme)
    if expr is call and not _tuple_form(call):
        coords = _coordinates(ctx, call, m)
        if coords is not None:
            return coords
        return NoFix(
            "the indices of `nonzero()` (one row per element) are used as they are, not "
            "flattened to one dimension, as a tuple, or as the columns of one index "
            "(`x[idx[:, 0], idx[:, 1]]`) reduced"
        )
    # inline: x[torch.where(m)] = v / x[m.nonzero().squeeze(1)] = v
    if _store_index(ctx, expr) is not None:
        return Rewrite(
            title="assign through the mask itself (`x[mask] = v`), not its indices",
            changes=[(expr, m)],
        )
    assign = ctx.parent(expr)
    if not isinstance(assign, cst.Assign) or assign.value is not expr or len(assign.targets) != 1:
        return NoFix("the indices are not assigned to names nor used to assign through")
    target = assign.targets[0].target
    if isinstance(target, (cst.Tuple, cst.List)):
        if expr is not call:
            return NoFix("the indices are unpacked from a one-dimensional form")
        els = target.elements
        if not all(isinstance(el.value, cst.Name) for el in els) or not els:
            return NoFix("the indices are unpacked into something other than names")
        names = [el.value.value for el in els]  # type: ignore[attr-defined]
    elif isinstance(target, cst.Name):
        names = [target.value]
    else:
        return NoFix("the indices are assigned to something other than a name")
    fn = ctx.function(assign)
    if fn is None:
        return NoFix("the indices are not computed in a function")
    bound = bound_names(fn.body)
    if any(len(bound.get(n, [])) != 1 for n in names):
        return NoFix("an index name is bound more than once")
    line = ctx.span(assign)[0]
    stores: list[cst.Subscript] = []
    reads: list[cst.Subscript | cst.Call] = []
    counts: list[cst.BaseExpression] = []
    ends: list[tuple[cst.Subscript, str]] = []
    rows = _row_coordinates(ctx, call, expr)
    seen: set[int] = set()
    for n in names:
        for r in name_nodes(fn.body, n):
            if r is target or (
                isinstance(target, cst.Tuple) and r in [e.value for e in target.elements]
            ):
                continue
            if ctx.span(r)[0] <= line or ctx.function(r) is not fn:
                return NoFix(f"`{n}` is read before or outside the code after it")
            end = _end_read(ctx, r) if rows and len(names) == 1 else None
            if end is not None:
                ends.append(end)
                continue
            got = _index_use(ctx, r, names)
            cnt = masks.count_use(ctx, r) if got is None else None
            if cnt is not None and masks.count_change(ctx, cnt, m) is not None:
                counts.append(cnt)
                continue
            if got is None:
                stmt = ctx.statement(r)
                use = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else n
                return NoFix(
                    f"`{n}` is used in `{use}`, not only as the index of a tensor (`x[{n}]`)"
                )
            sub, store = got
            if id(sub) not in seen:
                seen.add(id(sub))
                if store:
                    assert isinstance(sub, cst.Subscript)
                    stores.append(sub)
                else:
                    reads.append(sub)
    if not stores and not reads and not counts and not ends:
        return NoFix("the indices are never used")
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]] = []
    stable = isinstance(m, cst.Name) and not masks._rebound_after(ctx, fn, {m.value}, line + 1)
    if stable:
        mask: cst.BaseExpression = m
        line_stmt = ctx.statement(assign)
        if isinstance(line_stmt, cst.SimpleStatementLine) and len(line_stmt.body) == 1:
            changes.append((line_stmt, cst.RemovalSentinel.REMOVE))
        else:
            changes.append((assign, cst.RemovalSentinel.REMOVE))
    else:
        mname = ctx.fresh_name(f"{names[0]}_mask", reserve=False)
        mask = cst.Name(mname)
        changes.append((assign, cst.Assign([cst.AssignTarget(cst.Name(mname))], m)))
    for sub in stores:
        changes.append((sub, sub.with_changes(slice=[cst.SubscriptElement(cst.Index(mask))])))
    for cnt in counts:  # the number of indices is the number of True
        got_c = masks.count_change(ctx, cnt, mask)
        assert got_c is not None
        changes.append(got_c)
    # a read x[idx] is the selection x[mask] (rows of x for a 1-D mask): kept only when it is
    # reduced, as CL111 rewrites a selection (reading through a mask breaks too)
    for sub in reads:
        x = sub.value if isinstance(sub, cst.Subscript) else _index_select_x(ctx, sub)
        got_rw = masks.rewrite_selection(ctx, masks.Selection(sub, x, mask), rows=len(names) == 1)
        if isinstance(got_rw, NoFix):
            return NoFix(f"`{ctx.code(sub)}` reads through the indices: {got_rw.reason}")
        changes.extend(got_rw.changes)  # type: ignore[arg-type]
    for sub, which in ends:  # the first / last row holding a True
        rows_any = template("__m__.reshape(__m__.shape[0], -1).any(1).long()", m=mask)
        text = "__r__.cumsum(0).argmax()" if which == "last" else "__r__.argmax()"
        changes.append((sub, template(text, r=rows_any).with_changes(lpar=sub.lpar, rpar=sub.rpar)))
    if not stable:
        ctx.fresh_name(mname)  # reserved now that it is used
    done: set[int] = set()
    unique = []
    for t, repl in changes:
        if id(t) not in done:
            done.add(id(t))
            unique.append((t, repl))
    return Rewrite(
        title="index with the mask itself, not its indices (`x[mask] = v`; a read reduced "
        "with the mask)",
        changes=unique,
        imports=("torch",) if reads else (),  # mask.sum() needs no import
    )


def _row_coordinates(ctx: FixContext, call: cst.Call, expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` holds the first coordinate of every True of the mask, in order:
    ``torch.where(m)[0]``, ``m.nonzero(as_tuple=True)[0]``, ``m.nonzero()[:, 0]`` (sorted:
    ``nonzero`` lists the Trues in row-major order)."""
    if expr is call or not isinstance(expr, cst.Subscript):
        return False
    if _tuple_form(call):
        return True
    return len(expr.slice) == 2  # `[:, 0]` (`_one_dim_index` checked its elements)


def _end_read(ctx: FixContext, r: cst.Name) -> tuple[cst.Subscript, str] | None:
    """(``idx[0]``, "first") / (``idx[-1]``, "last") for a read ``r`` of the row coordinates
    ``idx`` of a mask's Trues: the first / last row that holds a True, which is
    ``rows.argmax()`` / ``rows.cumsum(0).argmax()`` of ``rows = m.reshape(m.shape[0],
    -1).any(1).long()`` (the running count of such rows first reaches its maximum at the last
    one). The same 0-d int64 tensor whenever the mask has a True (the original raised an
    IndexError where it has none). Not a store or a deletion."""
    sub = ctx.parent(r)
    if not isinstance(sub, cst.Subscript) or sub.value is not r or len(sub.slice) != 1:
        return None
    if isinstance(ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del)):
        return None
    got = _int_index(sub.slice[0])
    if got == 0:
        return sub, "first"
    if got == -1:
        return sub, "last"
    return None


def _column(ctx: FixContext, r: cst.Name) -> tuple[cst.Subscript, int] | None:
    """(``idx[:, j]``, j) for a read ``r`` of ``idx``."""
    sub = ctx.parent(r)
    if not isinstance(sub, cst.Subscript) or sub.value is not r or len(sub.slice) != 2:
        return None
    a, b = sub.slice
    full = (
        isinstance(a.slice, cst.Slice)
        and a.slice.lower is None
        and a.slice.upper is None
        and a.slice.step is None
    )
    if not full or not isinstance(b.slice, cst.Index) or not isinstance(b.slice.value, cst.Integer):
        return None
    return sub, int(b.slice.value.value)


def _coordinates(ctx: FixContext, call: cst.Call, m: cst.BaseExpression) -> Rewrite | NoFix | None:
    """``idx = m.nonzero()`` (one row of coordinates per True) whose every use is the read
    ``x[idx[:, 0], idx[:, 1], ...]`` (the columns in order: the selection ``x[m]``) reduced, or
    a count (``len(idx)``, ``idx.shape[0]``): the reads become the mask's rewrites (CL111),
    the counts ``m.sum()``, and the statement goes. None: not this shape."""
    assign = ctx.parent(call)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    fn = ctx.function(assign)
    if not isinstance(target, cst.Name) or fn is None or not isinstance(m, cst.Name):
        return None
    name = target.value
    if len(bound_names(fn.body).get(name, [])) != 1:
        return None
    if masks._rebound_after(ctx, fn, {m.value}, ctx.span(assign)[0] + 1):
        return None
    line = ctx.span(assign)[0]
    reads: list[cst.Subscript] = []
    counts: list[cst.BaseExpression] = []
    seen: set[int] = set()
    for r in name_nodes(fn.body, name):
        if r is target:
            continue
        if ctx.span(r)[0] <= line or ctx.function(r) is not fn:
            return None
        cnt = masks.count_use(ctx, r)
        if cnt is not None and not (isinstance(cnt, cst.Call) and masks._attr_of(cnt) == "numel"):
            if masks.count_change(ctx, cnt, m) is None:
                return None
            counts.append(cnt)
            continue
        col = _column(ctx, r)
        if col is None:
            return None
        up = ctx.parent(col[0])
        se = ctx.parent(up) if up is not None else None
        outer = ctx.parent(se) if isinstance(se, cst.SubscriptElement) else None
        if not isinstance(outer, cst.Subscript) or isinstance(ctx.parent(outer), cst.AssignTarget):
            return None
        cols = [
            _column(ctx, e.slice.value.value)
            if isinstance(e.slice, cst.Index)
            and isinstance(e.slice.value, cst.Subscript)
            and isinstance(e.slice.value.value, cst.Name)
            and e.slice.value.value.value == name
            else None
            for e in outer.slice
        ]
        if any(c is None for c in cols) or [c[1] for c in cols] != list(range(len(cols))):  # type: ignore[index]
            return None
        if id(outer) not in seen:
            seen.add(id(outer))
            reads.append(outer)
    if not reads:
        return None
    stmt = ctx.statement(assign)
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel]] = []
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        changes.append((stmt, cst.RemovalSentinel.REMOVE))
    else:
        changes.append((assign, cst.RemovalSentinel.REMOVE))
    counted = []
    for cnt in counts:
        got_c = masks.count_change(ctx, cnt, m)
        assert got_c is not None
        counted.append(got_c)
    for sub in reads:
        sel = masks.Selection(sub, sub.value, m)
        got = masks.rewrite_selection(ctx, sel, rows=False)
        if isinstance(got, NoFix):
            return NoFix(f"`{ctx.code(sub)}` reads through the coordinates: {got.reason}")
        changes.extend(got.changes)  # type: ignore[arg-type]
    for old, new in counted:
        # a count in a statement the read's rewrite rebuilt (the broadcast mask bound before
        # it) is replaced there
        for i, (node, repl) in enumerate(changes):
            if isinstance(repl, cst.FlattenSentinel) and any(a is node for a in ctx.ancestors(old)):
                changes[i] = (node, cst.FlattenSentinel([_swap(st, old, new) for st in repl]))
                break
        else:
            changes.append((old, new))
    return Rewrite(
        title="read through the mask itself (`x[idx[:, 0], idx[:, 1]]` is `x[mask]`), "
        "reduced with the mask, without `nonzero()`",
        changes=changes,
        imports=("torch",),
    )


def _swap(tree: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """``tree`` with the nodes equal to ``old`` (its text) replaced by ``new``."""

    class T(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return new if o.deep_equals(old) else u

    # a transformer that replaces nodes by nodes gives a node
    return cast(cst.CSTNode, tree.visit(T()))


def _index_select_x(ctx: FixContext, call: cst.Call) -> cst.BaseExpression:
    assert isinstance(call.func, cst.Attribute)
    return call.args[0].value if _is_torch(ctx, call.func.value) else call.func.value


def _index_select(ctx: FixContext, r: cst.Name) -> tuple[cst.Call, cst.BaseExpression] | None:
    """(the call, ``x``) for ``x.index_select(0, r)`` or ``torch.index_select(x, 0, r)``: the
    rows ``x[r]`` read."""
    arg = ctx.parent(r)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value != "index_select" or any(a.keyword or a.star for a in call.args):
        return None
    args = [a.value for a in call.args]
    if _is_torch(ctx, call.func.value):
        if len(args) != 3:
            return None
        x, dim, idx = args
    else:
        if len(args) != 2:
            return None
        x, (dim, idx) = call.func.value, args
    if idx is not r or not (isinstance(dim, cst.Integer) and dim.value == "0"):
        return None
    return call, x


def _index_use(
    ctx: FixContext, r: cst.Name, names: list[str]
) -> tuple[cst.Subscript | cst.Call, bool] | None:
    """(``x[r]``, whether it is the target of a plain assignment) for one name, or ``x[i, j]``
    (the unpacked names in order); ``x.index_select(0, r)`` reads like ``x[r]``."""
    if len(names) == 1:
        sel = _index_select(ctx, r)
        if sel is not None:
            return sel[0], False
    el = ctx.parent(r)
    se = ctx.parent(el) if isinstance(el, cst.Index) else None
    sub = ctx.parent(se) if isinstance(se, cst.SubscriptElement) else None
    if not isinstance(sub, cst.Subscript) or len(sub.slice) != len(names):
        return None
    for e, n in zip(sub.slice, names):
        if not (isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)):
            return None
        if e.slice.value.value != n:
            return None
    tgt = ctx.parent(sub)
    if isinstance(tgt, cst.AugAssign) or (isinstance(tgt, cst.Del)):
        return None
    return sub, isinstance(tgt, cst.AssignTarget) and tgt.target is sub


def _bincount(ctx: FixContext, call: cst.Call) -> Rewrite | NoFix:
    f = call.func
    assert isinstance(f, cst.Attribute)
    pos = [a.value for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args):
        return NoFix("the call unpacks its arguments")
    if _is_torch(ctx, f.value):
        if not pos:
            return NoFix("the indices are passed by keyword")
        idx, rest = pos[0], pos[1:]
    else:
        idx, rest = f.value, pos
    for key, value in zip(("weights", "minlength"), rest):
        if key in kw:
            return NoFix(f"`{key}` is passed twice")
        kw[key] = value
    if len(rest) > 2 or "minlength" not in kw or not set(kw) <= {"minlength", "weights"}:
        return NoFix(
            "`bincount` without `minlength=` has a size only the data gives: pass the number "
            "of bins (a class or expert count the model knows) as `minlength=`"
        )
    n = kw["minlength"]
    t = ctx.torch()
    w = kw.get("weights")
    if w is not None and not (isinstance(w, cst.Name) and w.value == "None"):
        # bincount keeps float32 weights' dtype and gives float64 for every other dtype
        dt = f"({t}.float32 if __w__.dtype == {t}.float32 else {t}.float64)"
        stmt = ctx.statement(call)
        bind = None
        if not _pure(w):
            if stmt is None or not isinstance(stmt, cst.SimpleStatementLine):
                return NoFix("the weights are computed in a compound statement")
            wn = cst.Name(ctx.fresh_name("bin_weights"))
            bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(wn)], w)])
            w = wn
        new = template(
            f"{t}.zeros(__n__, dtype={dt}, device=__i__.device).index_add_(0, __i__, "
            f"__w__.to({dt[1:-1]}))",
            n=n,
            i=atom(idx),
            w=atom(w),
        )
        title = (
            "sum the weights into `minlength` bins with `index_add_` (a static size; the dtype "
            "`bincount` gives; an index past the last bin raises instead of growing the output)"
        )
        if bind is not None:
            assert stmt is not None
            done = _swap_identity(stmt, call, new.with_changes(lpar=call.lpar, rpar=call.rpar))
            return Rewrite(
                title=title,
                changes=[(stmt, cst.FlattenSentinel([bind, done]))],
                imports=("torch",),
            )
    else:
        new = template(
            f"{t}.zeros(__n__, dtype={t}.long, device=__i__.device).index_add_(0, __i__, "
            f"{t}.ones_like(__i__, dtype={t}.long))",
            n=n,
            i=atom(idx),
        )
        title = (
            "count into `minlength` bins with `index_add_` (a static size; an index past the "
            "last bin raises instead of growing the output)"
        )
    return Rewrite(
        title=title,
        changes=[(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))],
        imports=("torch",),
    )


def selections_counted(ctx: FixContext, call: cst.Call) -> Rewrite | None:
    """The rewrite of ``bincount`` over mask selections (``bincount(target[m] * C + pred[m],
    minlength=C * C)``, or through names: ``pred = pred[m]`` ... ``bincount(n * label +
    pred, ...)``): the flow of the selection (:func:`flow.masked_flow`) that ends in this
    call counts every position with the mask as its weights, so the selection's line and the
    count's are fixed together."""
    fn = ctx.function(call)
    if fn is None:
        return None
    line = ctx.span(call)[0]
    for sub in flow.subscripts_of(fn):
        if ctx.span(sub)[0] > line:
            break
        sel = masks.subscript_selection(sub)
        if sel is None or not masks.looks_like_mask(ctx, sub, sel.m):
            continue
        got = flow.masked_flow(ctx, sub)
        if isinstance(got, Rewrite) and any(
            n is call or any(a is n for a in ctx.ancestors(call)) for n, _ in got.changes
        ):
            return got
    return None


def _pure(e: cst.BaseExpression) -> bool:
    """A name or an attribute of one: reading it again reads the same value."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _swap_identity(tree: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """``tree`` with the node ``old`` (by identity) replaced by ``new``."""

    class T(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return new if o is old else u

    return cast(cst.CSTNode, tree.visit(T()))


def _int_index(e: cst.SubscriptElement) -> int | None:
    """The integer of an index element ``3`` / ``-1``, else None."""
    s = e.slice
    if not isinstance(s, cst.Index):
        return None
    v = s.value
    if isinstance(v, cst.Integer):
        return int(v.value)
    if (
        isinstance(v, cst.UnaryOperation)
        and isinstance(v.operator, cst.Minus)
        and isinstance(v.expression, cst.Integer)
    ):
        return -int(v.expression.value)
    return None


_COLUMN_END = {"min": "first", "amin": "first", "max": "last", "amax": "last"}


def _column_extreme(ctx: FixContext, call: cst.Call, m: cst.BaseExpression) -> Rewrite | None:
    """``m.nonzero()[:, d].min()`` (``.max()``; ``torch.nonzero(m)``, ``torch.argwhere(m)``):
    the smallest (largest) coordinate along dim ``d`` of any True -> the first (last) True of
    ``m.movedim(d, 0).unsqueeze(-1).flatten(1).any(1)`` (does index ``i`` along ``d`` hold a
    True anywhere; the ``unsqueeze`` lets a one-dim mask flatten too), found with ``argmax`` (of the running count for the last). The same 0-d
    int64 whenever ``m`` has a True; with none the original raised (a reduction of nothing)
    and the rewrite gives 0."""
    p = ctx.parent(call)
    if _tuple_form(call) or not isinstance(p, cst.Subscript) or p.value is not call:
        return None
    if len(p.slice) != 2:
        return None
    a = p.slice[0].slice
    if not (isinstance(a, cst.Slice) and a.lower is None and a.upper is None and a.step is None):
        return None
    d = _int_index(p.slice[1])
    attr = ctx.parent(p)
    red = ctx.parent(attr) if isinstance(attr, cst.Attribute) and attr.value is p else None
    if d is None or not isinstance(red, cst.Call) or red.func is not attr or red.args:
        return None
    end = _COLUMN_END.get(attr.attr.value)  # type: ignore[attr-defined, union-attr]
    if end is None or side_effect(m) is not None:
        return None
    counts = ".long().cumsum(0)" if end == "last" else ".long()"
    new = template(
        f"__m__.movedim({d}, 0).unsqueeze(-1).flatten(1).any(1){counts}.argmax()",
        m=atom(m),
    ).with_changes(lpar=red.lpar, rpar=red.rpar)
    which = "smallest" if end == "first" else "largest"
    return _reading_index(
        ctx,
        red,
        Rewrite(
            title=f"the {which} coordinate {d} of a True without `nonzero()`: `argmax` over "
            f"whether each index along dim {d} holds a True"
            + (" (of the running count: its first maximum is the last)" if end == "last" else "")
            + "; 0 where the mask has no True (the original raised)",
            changes=[(red, new)],
        ),
    )


def _reading_index(ctx: FixContext, node: cst.CSTNode, rw: Rewrite) -> Rewrite:
    """``rw`` (which makes ``node`` a 0-d index tensor) with the reads of the name it is
    bound to that index tensors made one-element indices (a 0-d one is read as a Python int,
    a break: :func:`selection.one_element_index`)."""
    a = ctx.parent(node)
    if (
        not isinstance(a, cst.Assign)
        or a.value is not node
        or len(a.targets) != 1
        or not isinstance(a.targets[0].target, cst.Name)
    ):
        return rw
    reads = index_reads(ctx, a, a.targets[0].target.value)
    if isinstance(reads, str) or not reads:
        return rw
    return dataclasses.replace(
        rw,
        title=rw.title + "; it indexes as a one-element index (`x[i.view(1)].squeeze(0)`)",
        changes=[*rw.changes, *reads],
    )
