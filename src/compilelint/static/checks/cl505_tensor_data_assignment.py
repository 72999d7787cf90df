"""CL505: assigning ``.data`` of a tensor created inside the compiled region."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_NEW_VALUE = (cst.Call, cst.BinaryOperation, cst.UnaryOperation)


class TensorDataAssignment(Check):
    CODE = "CL505"

    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._created: set[tuple[str, str]] = set()  # (function, name) bound to a computed value

    def visit_Assign(self, node: cst.Assign) -> None:
        fn = self.w.func
        if fn is None:
            return
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name):
                key = (fn.qual, tgt.value)
                if isinstance(node.value, _NEW_VALUE):
                    self._created.add(key)
                else:
                    self._created.discard(key)  # an alias of an input, attribute, ...
                continue
            if not (isinstance(tgt, cst.Attribute) and tgt.attr.value == "data"):
                continue
            # self.weight.data = ..., x.data = ... on an input: tensors from outside the region
            # may have .data assigned; only tensors computed in this function break.
            if isinstance(tgt.value, cst.Name) and (fn.qual, tgt.value.value) in self._created:
                taint = self.taint(tgt.value)
                if taint:
                    self.report(node, requires=taint, name=tgt.value.value)
