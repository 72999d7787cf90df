"""CL302: Python control flow on a tensor's size against a threshold (shape bucketing)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

_SIZE_METHODS = frozenset({"size", "numel", "nelement"})
# Comparisons against these are free: dynamo specializes sizes 0 and 1 anyway and assumes a
# dynamic size is >= 2.
_TRIVIAL = frozenset({"0", "1", "2"})
_ORDER = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


class ShapeDependentBranch(Check):
    CODE = "CL302"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._sizes = ScopedNames(walker)  # local -> taint of the tensor whose size it holds

    # size expressions --------------------------------------------------------------------
    def _shape_of(self, node: cst.BaseExpression) -> Taint:
        """Taint of the tensor whose shape ``node`` is (x.shape, x.size()), else empty."""
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            return self.taint(node.value)
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
            and not node.args
        ):
            return self.taint(node.func.value)
        return NO_TAINT

    def _size(self, node: cst.BaseExpression) -> Taint:
        """Taint of the tensor whose size ``node`` reads (x.shape[1], x.size(0), T), else empty."""
        if isinstance(node, cst.Subscript):
            return self._shape_of(node.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in _SIZE_METHODS and (
                node.args or node.func.attr.value != "size"
            ):
                return self.taint(node.func.value)
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "len"
        ):
            if len(node.args) == 1 and "len" not in self.w.imports:
                return self.taint(node.args[0].value)
        if isinstance(node, cst.Name) and self.w.func is not None:
            return self._sizes.lookup(node.value)
        if isinstance(node, cst.BinaryOperation):
            return self._size(node.left) | self._size(node.right)
        return NO_TAINT

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.w.func is None:
            return
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name):
                self._sizes.bind(tgt, self._size(node.value))
            elif isinstance(tgt, (cst.Tuple, cst.List)):
                taint = self._shape_of(node.value)
                for el in tgt.elements:
                    self._sizes.bind(el.value, taint)

    # tests -------------------------------------------------------------------------------
    def _is_trivial(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Integer):
            return node.value in _TRIVIAL
        return isinstance(node, cst.Name) and node.value == "None"

    @staticmethod
    def _modulo(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)

    def _test_taint(self, test: cst.BaseExpression) -> Taint:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._test_taint(test.expression)
        if isinstance(test, cst.BooleanOperation):
            return self._test_taint(test.left) | self._test_taint(test.right)
        if not isinstance(test, cst.Comparison):
            return NO_TAINT
        out = NO_TAINT
        left = test.left
        for ct in test.comparisons:
            right = ct.comparator
            if isinstance(ct.operator, _ORDER):
                ls, rs = self._size(left), self._size(right)
                if ls and not rs and (self._modulo(left) or not self._is_trivial(right)):
                    out = out | ls
                elif rs and not ls and (self._modulo(right) or not self._is_trivial(left)):
                    out = out | rs
            left = right
        return out

    def _check(self, test: cst.BaseExpression) -> None:
        taint = self._test_taint(test)
        if taint:
            self.report(test, requires=taint, expr=self.code(test))

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test)
