"""CL502: changing ``requires_grad`` of a tensor inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_NEW_VALUE = (cst.Call, cst.BinaryOperation, cst.UnaryOperation)


class RequiresGradChange(Check):
    CODE = "CL502"

    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._created: set[tuple[str, str]] = set()  # (function, name) bound to a computed value

    def _is_intermediate(self, recv: cst.BaseExpression) -> bool:
        if isinstance(recv, _NEW_VALUE):
            return True
        fn = self.w.func
        return (
            fn is not None and isinstance(recv, cst.Name) and (fn.qual, recv.value) in self._created
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            # On an input or a parameter it always breaks (GB0125); on a tensor computed in the
            # region only when it reaches the output (GB8985), which is not decided here.
            if self._is_intermediate(func.value):
                return
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(node))

    def _target(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
            taint = self.taint(target.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(target))

    def visit_Assign(self, node: cst.Assign) -> None:
        fn = self.w.func
        for t in node.targets:
            self._target(t.target, node)
            if fn is not None and isinstance(t.target, cst.Name):
                key = (fn.qual, t.target.value)
                if isinstance(node.value, _NEW_VALUE):
                    self._created.add(key)
                else:
                    self._created.discard(key)
