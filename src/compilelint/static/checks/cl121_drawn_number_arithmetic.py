"""CL121: Python arithmetic on a number a traced ``random`` draw returned."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

if TYPE_CHECKING:
    from compilelint.static.analysis.walker import FileWalker


class DrawnNumberArithmetic(Check):
    CODE = "CL121"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        # whether the file imports the ``random`` module or a function of it (nothing else
        # draws: the check does no work in the other files), asked again after each import
        # statement (``_stale``); the hooks below read the two flags, without a call of their
        # own per node
        self._stale = False
        self._random = False

    def visit_Import(self, node: cst.Import) -> None:
        self._stale = True  # (the walker records the names before it fires the hooks)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._stale = True

    def _imports_random(self) -> None:
        # "\n"-joined targets: one call, not one per imported name
        targets = "\n" + "\n".join(self.w.imports.values()) + "\n"
        self._random = "\nrandom\n" in targets or "\nrandom." in targets
        self._stale = False

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
        if self._stale:
            self._imports_random()
        if self._random:
            self._pair(node, node.left, node.right)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self._stale:
            self._imports_random()
        if not self._random:
            return
        left = node.left
        for ct in node.comparisons:
            if isinstance(ct.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                left = ct.comparator
                continue
            if self._pair(node, left, ct.comparator):
                return
            left = ct.comparator

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._stale:
            self._imports_random()
        if self._random:
            self._pair(node, node.target, node.value)

    def visit_Slice(self, node: cst.Slice) -> None:
        if self._stale:
            self._imports_random()
        if not self._random:
            return
        for bound in (node.lower, node.upper, node.step):
            if (
                bound is not None
                and not isinstance(bound, (cst.BinaryOperation, cst.UnaryOperation))
                and self._drawn(bound)
            ):
                self.report(bound, expr=self.code(bound), use="a slice bound")
                return

    def visit_Index(self, node: cst.Index) -> None:
        if self._stale:
            self._imports_random()
        if not self._random:
            return
        v = node.value
        if not isinstance(v, (cst.BinaryOperation, cst.UnaryOperation)) and self._drawn(v):
            self.report(v, expr=self.code(v), use="an index")

    def visit_Call(self, node: cst.Call) -> None:
        if self._stale:
            self._imports_random()
        if not self._random:
            return
        if self.qualify(node.func) not in V.TRACED_DRAWS:
            return
        for a in node.args:
            if not isinstance(a.value, (cst.BinaryOperation, cst.Comparison)) and self._drawn(
                a.value
            ):
                self.report(a.value, expr=self.code(a.value), use="a bound of another draw")
                return
