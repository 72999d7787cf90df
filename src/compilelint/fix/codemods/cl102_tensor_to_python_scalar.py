"""CL102: ``int(t)``/``float(t)`` of a tensor whose number only feeds tensor arithmetic (or
eager-only code) stays a 0-d tensor, as CL103 does for ``.item()``.

- ``n = int((w > 0.5).sum())`` ... ``if not torch.compiler.is_compiling(): log(n)``
                                   -> ``n = torch.trunc((w > 0.5).sum())`` ... ``log(int(n))``
- ``x / float(t.std())``           -> ``x / t.std().detach()`` (no gradient, as before)

``bool(t)`` stays a bool tensor only where it decides ``if`` statements (lowered by CL101,
``compare``); ``complex(t)`` gets no fix.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import atom, template
from compilelint.fix.codemods.cl103_tensor_item import TensorItemDrop, detached
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix
from compilelint.model import Finding


class TensorCastDrop(TensorItemDrop):
    CODE = "CL102"
    needs_torch = True
    action = "drop `int()`/`float()`"

    def origin(
        self, ctx: FixContext, finding: Finding
    ) -> tuple[cst.Call, cst.BaseExpression, str] | NoFix:
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, cst.Name) and c.func.value in ("int", "float", "bool", "complex")
        ]
        if not calls:
            return NoFix("the conversion was not found in the file")
        call = calls[0]
        how = call.func.value  # type: ignore[attr-defined]
        if how not in ("int", "float", "bool") or len(call.args) != 1 or call.args[0].keyword:
            return NoFix(f"`{how}()` of a tensor has no tensor equivalent here")
        value = detached(call.args[0].value)
        if how == "bool":
            # `bad = bool(t.isnan().any())` ... `if bad:`: a bool tensor that decides only
            # `if` statements (see `TensorItemDrop._climb`), lowered by CL101
            new = template("__v__.bool()", v=atom(value))
        elif how == "int":
            new = template(f"{ctx.torch()}.trunc(__v__)", v=value)
        else:
            new = value
        if call.lpar:
            new = new.with_changes(lpar=call.lpar, rpar=call.rpar)
        return call, new, how
