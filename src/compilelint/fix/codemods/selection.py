"""A selection ``x[m]`` with a boolean mask, and the normalization of the index forms real
code writes around a mask (``x[:, m]``, ``x[..., m]``, ``x[m, :4]``, ``x[m, 0]``,
``x[m][:, 1:]``) to one form: a mask over the leading dims of a statically indexed tensor.
Every masked rewrite (:mod:`masks`, :mod:`flow`) proves its equivalence on that form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import (
    atom,
    bound_names,
    name_nodes,
    number_expr,
    side_effect,
    template,
)
from compilelint.fix.context import FixContext


@dataclass(frozen=True)
class Selection:
    node: cst.BaseExpression  # the selecting expression: x[m] or the masked_select call
    x: cst.BaseExpression
    m: cst.BaseExpression
    # False: ``node`` holds the elements of ``x[m]`` in another order (``h[:, keep]`` is
    # normalized to ``h.movedim(1, 0)[keep]``): reductions over all elements and element counts
    # hold, rows (``len``, ``dim=0``) and in-place writes do not
    ordered: bool = True


def subscript_selection(sub: cst.Subscript) -> Selection | None:
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return None
    return Selection(sub, sub.value, sub.slice[0].slice.value)


def masked_select(ctx: FixContext, call: cst.Call) -> Selection | None:
    """``torch.masked_select(x, m)`` / ``x.masked_select(m)`` (positional or keywords)."""
    f = call.func
    if not isinstance(f, cst.Attribute) or f.attr.value != "masked_select":
        return None
    if any(a.star for a in call.args):
        return None
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    pos = [a.value for a in call.args if a.keyword is None]
    if ctx.code(f.value).strip() == ctx.torch():
        if len(pos) == 2 and not kw:
            return Selection(call, pos[0], pos[1])
        if not pos and set(kw) == {"input", "mask"}:
            return Selection(call, kw["input"], kw["mask"])
        return None
    if len(pos) == 1 and not kw:
        return Selection(call, f.value, pos[0])
    if not pos and set(kw) == {"mask"}:
        return Selection(call, f.value, kw["mask"])
    return None


def index_select(ctx: FixContext, call: cst.Call) -> Selection | None:
    """``x.index_select(0, i)`` / ``torch.index_select(x, 0, i)`` (positional): the rows
    ``x[i]``, as a :class:`Selection` with ``m`` the index ``i``."""
    f = call.func
    if not isinstance(f, cst.Attribute) or f.attr.value != "index_select":
        return None
    if any(a.star or a.keyword for a in call.args):
        return None
    args = [a.value for a in call.args]
    if ctx.code(f.value).strip() == ctx.torch():
        if len(args) != 3:
            return None
        x, dim, i = args
    else:
        if len(args) != 2:
            return None
        x, (dim, i) = f.value, args
    if not (isinstance(dim, cst.Integer) and dim.value == "0"):
        return None
    return Selection(call, x, i)


def _full_slice(e: cst.SubscriptElement) -> bool:
    s = e.slice
    return isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None


def _static_index(e: cst.SubscriptElement) -> bool:
    """A basic index whose result shape does not depend on data: a slice with number or name
    bounds, an integer, ``None``."""
    s = e.slice
    if isinstance(s, cst.Slice):
        return all(
            b is None or number_expr(b) or isinstance(b, (cst.Name, cst.Attribute))
            for b in (s.lower, s.upper, s.step)
        )
    v = cast(cst.Index, s).value
    return number_expr(v) or (isinstance(v, cst.Name) and v.value == "None")


def _is_ellipsis(e: cst.SubscriptElement) -> bool:
    return isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis)


def normalized_selection(
    ctx: FixContext, sub: cst.Subscript, is_mask: Callable[[cst.BaseExpression], bool]
) -> Selection | None:
    """The selection ``sub`` makes, with a mask combined with static indices normalized to
    "mask over the leading dims of a statically indexed tensor" (one proof for all forms):

    - ``x[m]``                       -> ``x[m]`` (as :func:`subscript_selection`);
    - ``x[m, s...]`` (``x[m, :4]``, ``x[m, 0]``) -> ``x[:, s...][m]``: basic indices after a
      one-dim mask index the dims after it; the same elements in the same order;
    - ``x[m][:, s...]``              -> ``x[:, s...][m]`` (the outer subscript is the node);
    - ``x[:, m]``, ``x[:, :, m]``, ``x[..., m]`` (a one-dim mask, nothing after it) ->
      ``x.movedim(d, 0)[m]``: the same elements in another order (``ordered=False``: only
      reductions over all elements and element counts are rewritten from it);
    - ``x[b][m]``, ``x[idx][m]``: ``x[b]`` is the selected tensor as it is.

    ``is_mask``: whether an index is a boolean mask (the others must be static). The mask
    must be a name: the rewrites broadcast it to the rank of the indexed tensor
    (``m.reshape(m.shape + (1,) * ...)``), where an expression would be repeated."""
    els = list(sub.slice)
    at = [i for i, e in enumerate(els) if isinstance(e.slice, cst.Index) and is_mask(e.slice.value)]
    if len(els) == 1:
        sel = subscript_selection(sub)
        if sel is None:
            return None
        outer = ctx.parent(sub)
        if (
            isinstance(outer, cst.Subscript)
            and isinstance(sel.m, cst.Name)
            and outer.value is sub
            and len(outer.slice) >= 2
            and _full_slice(outer.slice[0])
            and all(_static_index(e) for e in outer.slice[1:])
            and side_effect(sub.value) is None
        ):
            x: cst.BaseExpression = outer.with_changes(value=atom(sub.value), lpar=[], rpar=[])
            return Selection(outer, x, sel.m)
        return sel
    if len(at) != 1:
        return None
    i = at[0]
    m = cast(cst.Index, els[i].slice).value
    if side_effect(sub.value) is not None or not isinstance(m, cst.Name):
        return None  # the rewrites broadcast a named mask over the indexed tensor's rank
    if i == 0:
        rest = els[1:]
        if not all(_static_index(e) for e in rest):
            return None
        full = cst.SubscriptElement(cst.Slice(lower=None, upper=None))
        x = sub.with_changes(slice=[full, *rest], lpar=[], rpar=[])
        return Selection(sub, x, m)
    if i != len(els) - 1:
        return None
    before = els[:i]
    if len(before) == 1 and _is_ellipsis(before[0]):
        d = "-1"
    elif all(_full_slice(e) for e in before):
        d = str(len(before))
    else:
        return None
    x = template(f"__x__.movedim({d}, 0)", x=atom(sub.value))
    return Selection(sub, x, m, ordered=False)


def one_element_index(
    ctx: FixContext, n: cst.CSTNode
) -> tuple[cst.Subscript, cst.BaseExpression] | None:
    """``t[..., i, ...]`` for a read ``n`` of a 0-d index tensor ``i`` that is one element of
    a subscript read, rewritten to index with a one-element tensor (``i.view(1)``) and drop
    the dim it adds (``.squeeze(d)``): a 0-d tensor index is read as a Python int (a graph
    break, GB0033), a one-element one is not. ``d``: torch puts the dims of adjacent
    advanced indices (the tensor, and integers beside it) where the first of them stands, so
    after the slices before it; apart, first. None: not such a read (``None``/``...`` in the
    index, a write, a slice bound)."""
    idx = ctx.parent(n)
    el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    if not isinstance(sub, cst.Subscript) or isinstance(
        ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del)
    ):
        return None
    els = list(sub.slice)
    adv: list[int] = []
    for k, e in enumerate(els):
        if isinstance(e.slice, cst.Slice):
            continue
        v = cast(cst.Index, e.slice).value
        if e is el or number_expr(v):
            adv.append(k)
            continue
        return None  # another tensor index, None or ...: the placement is not known here
    d = adv[0] if adv == list(range(adv[0], adv[-1] + 1)) else 0
    one = template("__i__.view(1)", i=n)  # type: ignore[arg-type]
    new_els = [e.with_changes(slice=cst.Index(one)) if e is el else e for e in els]
    new = template(
        f"__s__.squeeze({d})",
        s=sub.with_changes(slice=new_els, lpar=[], rpar=[]),
    )
    return sub, new.with_changes(lpar=sub.lpar, rpar=sub.rpar)


def index_reads(
    ctx: FixContext, assign: cst.CSTNode, name: str
) -> list[tuple[cst.Subscript, cst.BaseExpression]] | str:
    """The one-element rewrites (:func:`one_element_index`) of the reads of ``name`` (bound
    by ``assign`` to a 0-d index tensor) that index tensors; the other reads stay (a 0-d
    tensor in arithmetic). Why not, when ``name`` is bound again after ``assign``."""
    fn = ctx.function(assign)
    if fn is None:
        return "not in a function"
    line = ctx.span(assign)[0]
    if any(ctx.span(b)[0] > line for b in bound_names(fn.body).get(name, [])):
        return f"`{name}` is bound again"
    out: list[tuple[cst.Subscript, cst.BaseExpression]] = []
    for r in name_nodes(fn.body, name, reads_only=True):
        if ctx.span(r)[0] <= line:
            continue
        got = one_element_index(ctx, r)
        if got is not None:
            out.append(got)
    return out
