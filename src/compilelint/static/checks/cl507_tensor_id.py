"""CL507: ``id()`` of a tensor inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class TensorId(Check):
    CODE = "CL507"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Name)
            and func.value == "id"
            and len(node.args) == 1
            and "id" not in self.w.imports
        ):
            taint = self.taint(node.args[0].value)
            if taint:
                self.report(node, requires=taint, expr=self.code(node.args[0].value))
