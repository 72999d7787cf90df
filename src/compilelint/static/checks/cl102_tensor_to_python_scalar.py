"""CL102: ``bool()``, ``int()``, ``float()`` or ``complex()`` of a tensor value."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_CASTS = frozenset({"bool", "int", "float", "complex"})


class TensorToPythonScalar(Check):
    CODE = "CL102"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value in _CASTS and len(node.args) == 1):
            return
        if func.value in self.w.imports or self.w.scope.env.get(func.value) is not None:
            return  # shadowed
        taint = self.taint(node.args[0].value)
        if taint:
            self.report(node, requires=taint, cast=func.value, expr=self.code(node.args[0].value))
