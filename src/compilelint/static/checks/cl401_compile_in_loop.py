"""CL401: ``torch.compile(...)`` called again and again (in a loop, or in traced code)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import names as N
from compilelint.static.checks.base import Check


class CompileInLoop(Check):
    CODE = "CL401"

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualify(node.func) not in N.COMPILE_CALLS:
            return
        if self.w.in_loop:
            self.report(
                node,
                scope="any",
                where="inside a loop: a new compiled wrapper is built every iteration",
            )
        elif self.w.func is not None:
            # torch.compile inside code that torch.compile itself traces (forward, helpers)
            self.report(node, where="inside code that torch.compile traces: it runs on every call")
