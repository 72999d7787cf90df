"""CL111: a boolean-mask selection keeps its shape with ``torch.where`` (see
:mod:`compilelint.fix.codemods.masks`).

- ``x[m].sum()`` / ``.nansum()``  -> ``torch.where(m, x, 0).sum()`` / ``.nansum()``
- ``x[m].prod()``                 -> ``torch.where(m, x, 1).prod()``
- ``x[m].mean()``                 -> ``(torch.where(m, x, 0).sum() / m.sum())``
- ``torch.sum(x[m])`` and the other function forms likewise.
- ``sel = x[m]`` whose every use is a reduction or a count -> ``sel = torch.where(m, x, 0)``,
  ``sel.mean()`` -> ``sel.sum() / m.sum()``, ``sel.numel()``/``len(sel)`` -> ``m.sum()``
- any other ``x[m]`` read: a proposal (``torch.where(m, x, 0)``), never applied.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods import masked_writes, masks, moe, weighted
from compilelint.fix.codemods.base import Codemod, bound_names, name_nodes, names_in
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding


class MaskedReductionWhere(Codemod):
    CODE = "CL111"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        subs = ctx.nodes_at(finding, cst.Subscript)
        if not subs:
            return NoFix("the indexing was not found in the file")
        dense = moe.dense_dispatch(ctx, subs[0])
        if dense is not None:
            return dense
        written = masked_writes.masked_write(ctx, subs[0])
        if written is not None:
            return written
        sel = masks.subscript_selection(subs[0])
        got = weighted.last_axis_mask(subs[0])
        if got is not None and (
            finding.stage != "dynamic" or masks.looks_like_mask(ctx, subs[0], got[0])
        ):
            dropped = weighted.weighted_scatter(ctx, subs[0])
            if dropped is not None:
                return dropped
        if sel is not None:
            # `x[m][:, :2]`: the static index after the selection is part of it
            sel = masks.normalized_selection(ctx, subs[0], lambda v: not _static(ctx, v)) or sel
        else:
            sel = _normalized(ctx, subs)
        if sel is None:
            return NoFix(
                "the mask is combined with indices that are not static (slices with number "
                "bounds, integers) or not at its ends"
            )
        moved = index_then_mask(ctx, sel)
        if moved is not None:
            return moved
        return masks.fix_selection(ctx, sel, known_mask=finding.stage != "dynamic")


def _static(ctx: FixContext, e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Ellipsis, cst.Integer)) or (
        isinstance(e, cst.UnaryOperation) and isinstance(e.expression, cst.Integer)
    )


def _normalized(ctx: FixContext, subs: list[cst.Subscript]) -> masks.Selection | None:
    """The first subscript on the line that is a mask combined with static indices
    (``x[:, m]``, ``x[m, :4]``, ``x[m][:, 1:]``: see :func:`masks.normalized_selection`)."""
    for sub in subs:
        sel = masks.normalized_selection(ctx, sub, lambda v: not _static(ctx, v))
        if sel is not None and (sel.node is not sub or len(sub.slice) > 1):
            return sel
    return None


def index_then_mask(ctx: FixContext, sel: masks.Selection) -> Rewrite | None:
    """``sel = idx[good]`` (a selection of an index tensor) read on only as the index of other
    tensors (``x[sel]``) -> ``x[idx][good]``: gather with the whole index first (a static
    shape), then select with the mask. The same rows in the same order (``x[I[g]]`` is
    ``x[I][g]`` for any index ``I`` and a mask ``g`` over its leading dimensions); the
    selection ``x[idx][good]`` is then the mask selection the other CL111 rewrites handle
    (reductions, counts), in the next round, verified together."""
    assign = ctx.parent(sel.node)
    if (
        not isinstance(assign, cst.Assign)
        or assign.value is not sel.node
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
        or not isinstance(sel.x, (cst.Name, cst.Attribute))
        or not isinstance(sel.m, (cst.Name, cst.Attribute))
    ):
        return None
    fn = ctx.function(assign)
    stmt = ctx.statement(assign)
    if fn is None or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    name = assign.targets[0].target.value
    if len(bound_names(fn).get(name, [])) != 1:
        return None
    used = names_in(sel.x) | names_in(sel.m)
    if masks._rebound_after(ctx, fn, used, ctx.span(assign)[0] + 1):
        return None
    line = ctx.span(assign)[0]
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]] = []
    gathered: dict[str, str] = {}  # code of x -> the name bound to x[idx]
    binds: list[cst.SimpleStatementLine] = []
    for r in name_nodes(fn.body, name, reads_only=True):
        idx = ctx.parent(r)
        se = ctx.parent(idx) if isinstance(idx, cst.Index) else None
        sub = ctx.parent(se) if isinstance(se, cst.SubscriptElement) else None
        if (
            ctx.span(r)[0] <= line
            or not isinstance(sub, cst.Subscript)
            or len(sub.slice) != 1
            or isinstance(ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del))
            or not isinstance(sub.value, (cst.Name, cst.Attribute))
            or masks._rebound_after(ctx, fn, names_in(sub.value), line + 1)
        ):
            return None
        code = ctx.code(sub.value)
        if code not in gathered:
            base = code.rsplit(".", 1)[-1]
            gathered[code] = ctx.fresh_name(f"{base}_gathered")
            binds.append(
                cst.SimpleStatementLine(
                    body=[
                        cst.Assign(
                            targets=[cst.AssignTarget(cst.Name(gathered[code]))],
                            value=cst.Subscript(
                                value=sub.value, slice=[cst.SubscriptElement(cst.Index(sel.x))]
                            ),
                        )
                    ]
                )
            )
        new = sub.with_changes(
            value=cst.Name(gathered[code]), slice=[cst.SubscriptElement(cst.Index(sel.m))]
        )
        changes.append((sub, new))
    if not changes:
        return None
    binds[0] = binds[0].with_changes(leading_lines=stmt.leading_lines)
    changes.append((stmt, cst.FlattenSentinel(binds)))  # type: ignore[arg-type]
    return Rewrite(
        title=f"gather with the whole index first (`x_gathered = x[{ctx.code(sel.x)}]`), then "
        f"select with the mask (`x_gathered[{ctx.code(sel.m)}]` for `x[{name}]`): the same rows, "
        "and the selection is a mask selection",
        changes=changes,  # type: ignore[arg-type]
    )
