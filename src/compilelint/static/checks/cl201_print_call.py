"""CL201: ``print()`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check


class PrintCall(Check):
    CODE = "CL201"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "print"):
            return
        if not _shadowed(self.w, "print"):
            self.report(node)


def _shadowed(w: FileWalker, name: str) -> bool:
    """Whether a builtin name is rebound by an import, a definition or a local variable."""
    if name in w.imports or name in w.module_defs:
        return True
    s = w.scope
    while s is not None:
        if name in s.env or name in s.local_defs:
            return True
        s = s.parent
    return False
