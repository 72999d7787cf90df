"""CL108: comparing or computing with ``Tensor.data_ptr()`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

_CMP = (
    cst.Equal,
    cst.NotEqual,
    cst.LessThan,
    cst.GreaterThan,
    cst.LessThanEqual,
    cst.GreaterThanEqual,
)


class TensorDataPtr(Check):
    CODE = "CL108"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._ptrs = ScopedNames(walker)  # name -> taint of the tensor the pointer came from

    def ptr_taint(self, e: cst.BaseExpression) -> Taint:
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and not e.args:
            if e.func.attr.value in ("data_ptr", "const_data_ptr"):
                return self.taint(e.func.value)
            return NO_TAINT
        if isinstance(e, cst.Name):
            return self._ptrs.lookup(e.value)
        return NO_TAINT

    def visit_Assign(self, node: cst.Assign) -> None:
        taint = self.ptr_taint(node.value)
        for t in node.targets:
            self._ptrs.bind(t.target, taint)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for ct in node.comparisons:
            right = ct.comparator
            if isinstance(ct.operator, _CMP) and self.code(left) != self.code(right):
                taint = self.ptr_taint(left) | self.ptr_taint(right)
                if taint:
                    self.report(node, requires=taint, expr=self.code(node))
                    return
            left = right

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        taint = self.ptr_taint(node.left) | self.ptr_taint(node.right)
        if taint:
            self.report(node, requires=taint, expr=self.code(node))
