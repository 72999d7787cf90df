"""CL118: a call given a generator expression, whose callee breaks the graph."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import AT_CALL
from compilelint.static.checks.base import Check


class GeneratorArgumentCall(Check):
    """``Composed(*(t(c) for t in self.parts))`` or ``f(x for x in xs)`` in traced code. Phase 2
    keeps it when a target of the call (a function, or the ``__init__`` of a class built) reaches
    a break (:class:`~compilelint.static.analysis.breakpoints.CalleeBreaks`): to resume the
    caller after the callee's break, torch 2.13 would have to rebuild the generator object the
    frame made, which it cannot ("Generator reconstruction with mutations", "Read uninitialized
    cell"), so it skips the calling frame and runs it eagerly; the call line breaks too."""

    CODE = "CL118"

    def visit_Call(self, node: cst.Call) -> None:
        if self.w.func is None or self.w.untraced_depth:
            return
        if not any(isinstance(a.value, cst.GeneratorExp) for a in node.args):
            return
        self.report(node, call=self.code(node, 60), via=AT_CALL)
