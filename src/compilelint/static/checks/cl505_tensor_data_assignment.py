"""CL505: assigning ``.data`` of a tensor created inside the compiled region."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

_NEW_VALUE = (cst.Call, cst.BinaryOperation, cst.UnaryOperation)


class TensorDataAssignment(Check):
    CODE = "CL505"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._created = ScopedNames(walker)  # local -> taint of a value computed in the region

    def visit_Assign(self, node: cst.Assign) -> None:
        fn = self.w.func
        if fn is None:
            return
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name):
                # an alias of an input, attribute, ... is forgotten
                computed = isinstance(node.value, _NEW_VALUE)
                self._created.bind(tgt, self.taint(node.value) if computed else NO_TAINT)
                continue
            if not (isinstance(tgt, cst.Attribute) and tgt.attr.value == "data"):
                continue
            # self.weight.data = ..., x.data = ... on an input: tensors from outside the region
            # may have .data assigned; only tensors computed in this function break.
            if isinstance(tgt.value, cst.Name) and self._created.lookup(tgt.value.value):
                taint = self.taint(tgt.value)
                if taint:
                    self.report(node, requires=taint, name=tgt.value.value)
