"""CL103: ``Tensor.item()`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class TensorItem(Check):
    CODE = "CL103"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args:
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(func.value))
