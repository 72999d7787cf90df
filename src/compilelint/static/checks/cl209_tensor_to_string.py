"""CL209: formatting a tensor as a string (``str(t)``, ``repr(t)``, ``"%s" % t``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.checks.base import Check


class TensorToString(Check):
    CODE = "CL209"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value in ("str", "repr", "ascii")):
            return
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if self.w.shadowed(func.value):
            return
        arg = node.args[0].value
        taint = self.taint(arg)
        if taint:
            self.report(node, requires=taint, form=f"{func.value}({self.code(arg, 30)})")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, cst.Modulo):
            return
        if not isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
            return
        right = node.right
        items = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        taint: Taint = NO_TAINT
        for it in items:
            taint = taint | self.taint(it)
        if taint:
            self.report(node, requires=taint, form="%-formatting")

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        # f"{t}" is formatted lazily and only breaks when the string is used; the explicit
        # conversions f"{t!r}" and f"{t!s}" break at once.
        if node.conversion not in ("r", "s", "a"):
            return
        taint = self.taint(node.expression)
        if taint:
            self.report(node, requires=taint, form=f"f-string `!{node.conversion}` conversion")
