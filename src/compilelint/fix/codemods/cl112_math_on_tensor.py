"""CL112: a ``math`` function of a tensor becomes the ``torch`` one, where its result only
feeds arithmetic with tensors (or eager-only code), as CL103 does for ``.item()``.

- ``std = math.sqrt(var)`` ... ``(img - mean) / std``  -> ``std = torch.sqrt(var)`` ...
- ``x * math.exp(-t.mean())``                          -> ``x * torch.exp(-t.mean())``

Functions without a torch counterpart of the same meaning, and predicates (``math.isnan``,
whose result feeds a branch), get no fix.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import TORCH_OF
from compilelint.fix.codemods.cl103_tensor_item import TensorItemDrop, detached
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix
from compilelint.model import Finding


class MathToTorch(TensorItemDrop):
    CODE = "CL112"
    needs_torch = True
    action = "use the torch function for the `math` one"

    def origin(
        self, ctx: FixContext, finding: Finding
    ) -> tuple[cst.Call, cst.BaseExpression, str] | NoFix:
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, (cst.Attribute, cst.Name))
        ]
        if not calls:
            return NoFix("the `math` call was not found in the file")
        call = calls[0]
        f = call.func
        name = f.attr.value if isinstance(f, cst.Attribute) else cast(cst.Name, f).value
        if name not in TORCH_OF:
            return NoFix(f"`math.{name}` has no torch function of the same meaning here")
        if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return NoFix(f"`math.{name}` is called with more than one argument")
        new = call.with_changes(
            func=cst.parse_expression(ctx.torch(TORCH_OF[name])),
            args=[
                call.args[0].with_changes(
                    value=detached(call.args[0].value), comma=cst.MaybeSentinel.DEFAULT
                )
            ],
        )
        return call, new, "float"
