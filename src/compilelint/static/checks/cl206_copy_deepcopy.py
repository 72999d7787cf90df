"""CL206: ``copy.deepcopy`` / ``copy.copy`` of tensors or modules inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_FUNCS = {"copy.deepcopy": "copy.deepcopy", "copy.copy": "copy.copy"}


class CopyDeepcopy(Check):
    CODE = "CL206"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, (cst.Name, cst.Attribute)) or not node.args:
            return
        last = func.value if isinstance(func, cst.Name) else func.attr.value
        if last not in ("deepcopy", "copy"):
            return
        fname = _FUNCS.get(self.qualify(func) or "")
        if fname is None:
            return
        arg = node.args[0].value
        if self._submodule(arg):
            self.report(node, func=fname, expr=self.code(arg))
            return
        taint = self.taint(arg)
        if taint:
            self.report(node, requires=taint, func=fname, expr=self.code(arg))

    def _submodule(self, arg: cst.BaseExpression) -> bool:
        """``self.<attr>`` holding a ``torch.nn`` module built in ``__init__``."""
        cls = self.w.cls
        if (
            cls is None
            or not isinstance(arg, cst.Attribute)
            or not isinstance(arg.value, cst.Name)
            or arg.value.value != "self"
        ):
            return False
        made = cls.attr_classes.get(arg.attr.value, ())
        return any(r.startswith("torch.nn.") and r[9:10].isupper() for r in made)
