"""CL203: ``warnings.warn`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_WARN = frozenset({"warnings.warn", "warnings.warn_explicit"})


class WarningsWarn(Check):
    CODE = "CL203"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value not in self.w.imports:
            return
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return
        q = self.qualify(func)
        if q in _WARN:
            self.report(node, func=q, **self.diagnostic_branch())
