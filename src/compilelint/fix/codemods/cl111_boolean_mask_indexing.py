"""CL111: a boolean-mask selection reduced at once keeps its shape with ``torch.where``.

- ``x[m].sum()`` / ``.nansum()``  -> ``torch.where(m, x, 0).sum()`` / ``.nansum()``
- ``x[m].prod()``                 -> ``torch.where(m, x, 1).prod()``
- ``x[m].mean()``                 -> ``(torch.where(m, x, 0).sum() / m.sum())``
- ``torch.sum(x[m])`` and the other function forms likewise.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, atom, paren, template
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

_FILL = {"sum": "0", "nansum": "0", "prod": "1", "mean": "0"}
# contexts where a division needs no parentheses
_PLAIN = (cst.Assign, cst.AnnAssign, cst.Return, cst.Arg, cst.Expr, cst.Element)


class MaskedReductionWhere(Codemod):
    CODE = "CL111"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        subs = ctx.nodes_at(finding, cst.Subscript)
        if not subs:
            return NoFix("the indexing was not found in the file")
        sub = subs[0]
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return NoFix("the mask is combined with other indices")
        x, m = sub.value, sub.slice[0].slice.value
        p = ctx.parent(sub)
        target: cst.Call | None = None
        op = ""
        if isinstance(p, cst.Attribute) and p.value is sub and p.attr.value in _FILL:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and call.func is p:
                if call.args:
                    return NoFix("the reduction takes arguments (a dim or dtype)")
                target, op = call, p.attr.value
        elif isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and len(call.args) == 1 and p.keyword is None:
                name = ctx.code(call.func).strip()
                head, _, last = name.rpartition(".")
                if last in _FILL and head == ctx.torch():
                    target, op = call, last
        if target is None:
            return NoFix(
                "the selection is not reduced at once (`x[m].sum()`); what follows needs the "
                "selected shape"
            )
        t = ctx.torch()
        where = template(f"{t}.where(__m__, __x__, {_FILL[op]})", m=m, x=x)
        if op == "mean":
            new = template("__w__.sum() / __m__.sum()", w=where, m=atom(m))
            if not isinstance(ctx.parent(target), _PLAIN):
                new = paren(new)
        else:
            new = template(f"__w__.{op}()", w=where)
        new = new.with_changes(lpar=[*target.lpar, *new.lpar], rpar=[*new.rpar, *target.rpar])
        return Rewrite(
            title=f"reduce with `torch.where(mask, x, {_FILL[op]})` instead of selecting",
            changes=[(target, new)],
            imports=("torch",),
        )
