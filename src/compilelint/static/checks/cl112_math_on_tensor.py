"""CL112: a ``math`` function called on a tensor value."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check


class MathOnTensor(Check):
    CODE = "CL112"

    def visit_Call(self, node: cst.Call) -> None:
        q = self.qualify(node.func)
        if q is None or not q.startswith("math.") or not node.args:
            return
        if isinstance(node.func, cst.Name) and node.func.value not in self.w.imports:
            return  # a local function that happens to share the name
        taint: frozenset[str] = frozenset()
        for a in node.args:
            taint = taint | self.taint(a.value)
        if taint:
            self.report(node, requires=taint, func=q, expr=self.code(node.args[0].value))
