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

from compilelint.fix.codemods import masks, moe, weighted
from compilelint.fix.codemods.base import Codemod
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
        sel = masks.subscript_selection(subs[0])
        got = weighted.last_axis_mask(subs[0])
        if got is not None and (
            finding.stage != "dynamic" or masks.looks_like_mask(ctx, subs[0], got[0])
        ):
            dropped = weighted.weighted_scatter(ctx, subs[0])
            if dropped is not None:
                return dropped
        if sel is None:
            return NoFix("the mask is combined with other indices")
        return masks.fix_selection(ctx, sel, known_mask=finding.stage != "dynamic")
