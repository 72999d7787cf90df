"""A selection ``x[m]`` with a boolean mask, and the normalization of the index forms real
code writes around a mask (``x[:, m]``, ``x[..., m]``, ``x[m, :4]``, ``x[m, 0]``,
``x[m][:, 1:]``) to one form: a mask over the leading dims of a statically indexed tensor.
Every masked rewrite (:mod:`masks`, :mod:`flow`) proves its equivalence on that form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from compilelint.fix.codemods.base import atom, number_expr, side_effect, template
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
    v = s.value  # type: ignore[union-attr]
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
            x = outer.with_changes(value=atom(sub.value), lpar=[], rpar=[])
            return Selection(outer, x, sel.m)
        return sel
    if len(at) != 1:
        return None
    i = at[0]
    m = els[i].slice.value  # type: ignore[union-attr]
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
