"""CL114: ordering tensors by a key computed from their values becomes ``torch.argsort``.

- ``sorted(xs, key=lambda t: k(t), reverse=r)``
      -> ``list(torch.stack(list(xs))[torch.argsort(torch.stack([k(t) for t in xs]),
         stable=True, descending=r)].unbind(0))``
- ``max(xs, key=f)`` / ``min(xs, key=f)``
      -> ``torch.stack(list(xs)).index_select(0, torch.argmax(torch.stack([f(t) for t in
         xs])).view(1)).squeeze(0)`` (``argmin``)

The keys are stacked into one tensor and ordered in the graph; a stable sort keeps the order of
equal keys as ``sorted`` does, and ``argmax``/``argmin`` return the first extreme as ``max``/
``min`` do. The elements must have one shape (they are stacked): verification runs the model,
and a model whose elements differ fails there and gets no fix. Gradients reach the elements as
before (the keys are not differentiated in either form).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, atom, side_effect, template
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class SortByTensorKey(Codemod):
    CODE = "CL114"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        call = next(
            (c for c in calls if isinstance(c.func, cst.Name) and c.func.value in _FUNCS),
            None,
        )
        if call is None:
            if any(isinstance(c.func, cst.Attribute) for c in calls):
                return NoFix("`list.sort(key=...)` sorts in place: not rewritten")
            return NoFix("the ordering call was not found in the file")
        how = call.func.value  # type: ignore[attr-defined]
        pos = [a for a in call.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(pos) != 1 or pos[0].star or set(kw) - {"key", "reverse"} or "key" not in kw:
            return NoFix(f"`{how}` is called with more than an iterable, `key=` and `reverse=`")
        if how != "sorted" and "reverse" in kw:
            return NoFix(f"`{how}` does not take `reverse=`")
        xs = pos[0].value
        eff = side_effect(xs)
        if eff is not None:
            return NoFix(
                f"`{ctx.code(eff).strip()}` has a side effect (the iterable is read twice)"
            )
        keys = self._keys(ctx, kw["key"], xs)
        if isinstance(keys, NoFix):
            return keys
        th = ctx.torch()
        stacked = template(f"{th}.stack(list(__xs__))", xs=xs)
        if how == "sorted":
            rev = kw.get("reverse")
            desc = "" if rev is None else ", descending=__r__"
            order = template(
                f"{th}.argsort({th}.stack(__k__), stable=True{desc})",
                k=keys,
                **({"r": rev} if rev is not None else {}),
            )
            new = template("list(__s__[__o__].unbind(0))", s=stacked, o=order)
            title = "order with `torch.argsort` on the stacked keys (stable, as `sorted`)"
        else:
            fn = "argmax" if how == "max" else "argmin"
            # a 0-d index tensor would be read as a Python int (a break): select with a 1-d one
            new = template(
                f"__s__.index_select(0, {th}.{fn}({th}.stack(__k__)).view(1)).squeeze(0)",
                s=stacked,
                k=keys,
            )
            title = f"pick with `torch.{fn}` on the stacked keys (the first, as `{how}`)"
        return Rewrite(
            title=title,
            changes=[(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))],
            imports=("torch",),
        )

    def _keys(
        self, ctx: FixContext, key: cst.BaseExpression, xs: cst.BaseExpression
    ) -> cst.ListComp | NoFix:
        """``[k(t) for t in xs]`` for the ``key=`` function."""
        if isinstance(key, cst.Lambda):
            ps = key.params
            if (
                len(ps.params) != 1
                or isinstance(ps.star_arg, cst.Param)
                or ps.kwonly_params
                or ps.star_kwarg is not None
            ):
                return NoFix("the key is a lambda of more than one parameter")
            name = ps.params[0].name
            body = key.body
        elif isinstance(key, (cst.Name, cst.Attribute)):
            name = cst.Name(ctx.fresh_name("item"))
            body = cst.Call(func=key, args=[cst.Arg(name)])
        else:
            return NoFix("the key is not a lambda or a function name")
        eff = side_effect(body)
        if eff is not None:
            return NoFix(f"the key has a side effect (`{ctx.code(eff).strip()}`)")
        return cst.ListComp(
            elt=body,
            for_in=cst.CompFor(target=name, iter=atom(xs)),
        )


_FUNCS = frozenset({"sorted", "max", "min"})
