"""CL206: ``copy.deepcopy(t)`` of a tensor becomes ``t.clone()``."""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, atom
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class DeepcopyClone(Codemod):
    CODE = "CL206"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the call was not found in the file")
        call = calls[0]
        func = call.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if last != "deepcopy":
            return NoFix("`copy.copy` of a tensor shares its storage; `clone()` would copy it")
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return NoFix("deepcopy is called with a memo or keyword arguments")
        arg = call.args[0].value
        if not ctx.is_tensor(arg):
            return NoFix(
                "the copied value is a module, not a tensor: copy it once outside the "
                "compiled region"
            )
        new = cst.Call(func=cst.Attribute(value=atom(arg), attr=cst.Name("clone")), args=[])
        return Rewrite(
            title="copy the tensor with `.clone()`",
            changes=[(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))],
        )
