"""CL113: a tensor used as a slice bound."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class TensorSliceBound(Check):
    CODE = "CL113"

    def visit_Slice(self, node: cst.Slice) -> None:
        taint: frozenset[str] = frozenset()
        first: cst.BaseExpression | None = None
        for bound in (node.lower, node.upper, node.step):
            if bound is None:
                continue
            t = self.taint(bound)
            if t:
                taint = taint | t
                first = first or bound
        if first is not None:
            self.report(first, requires=taint, expr=self.code(first))
