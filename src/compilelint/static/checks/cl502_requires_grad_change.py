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
        # (function, name) -> requires_grad_() calls on an intermediate not returned (yet)
        self._pending: dict[tuple[str, str], list[cst.Call]] = {}
        self._returned: set[int] = set()  # ids of nodes inside return values

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
                self._intermediate(node, func.value)
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

    def _intermediate(self, node: cst.Call, recv: cst.BaseExpression) -> None:
        """``requires_grad_()`` on a tensor computed here breaks when it is returned (GB8985)."""
        if id(node) in self._returned:
            taint = self.taint(recv)
            if taint:
                self.report(node, requires=taint, expr=self.code(node))
            return
        fn = self.w.func
        if fn is not None and isinstance(recv, cst.Name):
            self._pending.setdefault((fn.qual, recv.value), []).append(node)

    def visit_Return(self, node: cst.Return) -> None:
        fn = self.w.func
        if fn is None or node.value is None:
            return
        stack: list[cst.CSTNode] = [node.value]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Call):
                self._returned.add(id(n))
            if isinstance(n, cst.Name):
                for call in self._pending.pop((fn.qual, n.value), []):
                    recv = call.func.value  # type: ignore[attr-defined]
                    taint = self.taint(recv)
                    if taint:
                        self.report(call, requires=taint, expr=self.code(call))
            if isinstance(n, (cst.Tuple, cst.List)):
                stack.extend(e.value for e in n.elements)
            elif isinstance(n, cst.Call):
                stack.append(n.func)
            elif isinstance(n, cst.Attribute):
                stack.append(n.value)
