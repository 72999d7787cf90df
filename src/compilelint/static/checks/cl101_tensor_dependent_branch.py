"""CL101: Python control flow that depends on a tensor's value."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class TensorDependentBranch(Check):
    CODE = "CL101"

    def _test(self, test: cst.BaseExpression) -> None:
        taint = self.taint(test)
        if taint:
            self.report(test, requires=taint, expr=self.code(test))

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._test(node.test)
