"""CL201: ``print()`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class PrintCall(Check):
    CODE = "CL201"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "print"):
            return
        if not self.w.shadowed("print"):
            self.report(node)
