"""CL504: ``.backward()`` / ``torch.autograd.grad`` / ``torch.autograd.backward`` in traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_AUTOGRAD = frozenset({"torch.autograd.grad", "torch.autograd.backward"})


class BackwardInCompiledRegion(Check):
    CODE = "CL504"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        q = self.qualify(func)
        if q in _AUTOGRAD:
            self.report(node, call=f"{q}()")
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, call="Tensor.backward()")
