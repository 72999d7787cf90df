"""CL204: a debugger entry point (``breakpoint()``, ``pdb.set_trace()``) in compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_DEBUGGERS = frozenset(
    {"pdb.set_trace", "ipdb.set_trace", "pdb.post_mortem", "ipdb.post_mortem", "pudb.set_trace"}
)


class DebuggerCall(Check):
    CODE = "CL204"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            if func.value == "breakpoint" and not self.w.shadowed("breakpoint"):
                self.report(node, func="breakpoint()")
                return
            if func.value not in self.w.imports:
                return
        elif not isinstance(func, cst.Attribute):
            return
        q = self.qualify(func)
        if q in _DEBUGGERS:
            self.report(node, func=f"{q}()")
