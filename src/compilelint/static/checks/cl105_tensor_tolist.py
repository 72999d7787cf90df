"""CL105: ``Tensor.tolist()`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class TensorTolist(Check):
    CODE = "CL105"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "tolist" and not node.args:
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(func.value))
