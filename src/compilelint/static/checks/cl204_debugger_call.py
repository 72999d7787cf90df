"""CL204: a debugger entry point (``breakpoint()``, ``pdb.set_trace()``) in compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check

_DEBUGGERS = frozenset(
    {"pdb.set_trace", "ipdb.set_trace", "pdb.post_mortem", "ipdb.post_mortem", "pudb.set_trace"}
)


class DebuggerCall(Check):
    CODE = "CL204"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            if func.value == "breakpoint" and not _shadowed(self.w, "breakpoint"):
                self.report(node, func="breakpoint()")
                return
            if func.value not in self.w.imports:
                return
        elif not isinstance(func, cst.Attribute):
            return
        q = self.qualify(func)
        if q in _DEBUGGERS:
            self.report(node, func=f"{q}()")


def _shadowed(w: FileWalker, name: str) -> bool:
    if name in w.imports or name in w.module_defs:
        return True
    s = w.scope
    while s is not None:
        if name in s.env or name in s.local_defs:
            return True
        s = s.parent
    return False
