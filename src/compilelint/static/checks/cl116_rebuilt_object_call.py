"""CL116: a method that breaks the graph, called on an object the traced function built."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import AT_CALL
from compilelint.static.checks.base import Check


class RebuiltObjectCall(Check):
    """``obj.method(...)`` where ``obj`` is a local bound once, in this function, to what a call
    returns (``solver = SOLVERS[method](...)``, ``s = Stepper(x)``). Phase 2 keeps it when the
    object calls recorded at this call (``O|<class>|<method>``: the class of an object built
    from a class, a registry of classes or a factory's class) reach a break
    (:class:`~compilelint.static.analysis.breakpoints.CalleeBreaks`): torch 2.13 cannot rebuild
    an object built while tracing to resume the frame ("Reconstruction failure", GB0092)."""

    CODE = "CL116"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return
        name = func.value.value
        if self.w.func is None or self.w.untraced_depth or name == "self":
            return
        bound = self.w.scope.aliases.get(name)
        if not isinstance(bound, cst.Call):
            return
        cls = bound.func
        while isinstance(cls, cst.Subscript):
            cls = cls.value
        self.report(
            node,
            call=f"{name}.{func.attr.value}(...)",
            cls=self.code(cls, 40),
            via=AT_CALL,
        )
