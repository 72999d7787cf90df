"""CL121: Python arithmetic on a number a traced ``random`` draw returned."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check


class DrawnNumberArithmetic(Check):
    CODE = "CL121"

    def _drawn(self, node: cst.BaseExpression) -> bool:
        return V.DRAWN in V.members(self.w.value(node))

    def _python_number(self, node: cst.BaseExpression) -> bool:
        """Certainly a Python number (a literal, a size, another draw): no tensor and nothing
        symbolic that may be one."""
        return all(m[0] == "S" and m[1] != "str" for m in V.members(self.w.value(node)))

    def _pair(self, node: cst.CSTNode, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
        if (self._drawn(a) and self._python_number(b)) or (
            self._drawn(b) and self._python_number(a)
        ):
            # one report per expression: the innermost operation on the draw
            for side in (a, b):
                if isinstance(side, (cst.BinaryOperation, cst.Comparison)) and self._drawn(side):
                    return False
            self.report(node, expr=self.code(node), use="arithmetic")
            return True
        return False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._pair(node, node.left, node.right)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for ct in node.comparisons:
            if isinstance(ct.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                left = ct.comparator
                continue
            if self._pair(node, left, ct.comparator):
                return
            left = ct.comparator

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._pair(node, node.target, node.value)

    def visit_Slice(self, node: cst.Slice) -> None:
        for bound in (node.lower, node.upper, node.step):
            if (
                bound is not None
                and not isinstance(bound, (cst.BinaryOperation, cst.UnaryOperation))
                and self._drawn(bound)
            ):
                self.report(bound, expr=self.code(bound), use="a slice bound")
                return

    def visit_Index(self, node: cst.Index) -> None:
        v = node.value
        if not isinstance(v, (cst.BinaryOperation, cst.UnaryOperation)) and self._drawn(v):
            self.report(v, expr=self.code(v), use="an index")

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualify(node.func) not in V.TRACED_DRAWS:
            return
        for a in node.args:
            if not isinstance(a.value, (cst.BinaryOperation, cst.Comparison)) and self._drawn(
                a.value
            ):
                self.report(a.value, expr=self.code(a.value), use="a bound of another draw")
                return
