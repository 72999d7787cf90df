"""CL106: a NumPy array made from a tensor turned into Python values (``.numpy().tolist()``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

_ARRAY_FROM = frozenset({"numpy.asarray", "numpy.array", "numpy.asanyarray"})
# ndarray attributes that are static metadata, not arrays.
_META = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"})
_CASTS = frozenset({"float", "int", "bool", "complex"})


class TensorNumpy(Check):
    CODE = "CL106"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._arrays = ScopedNames(walker)  # name -> taint of the tensor the array came from

    def array_taint(self, e: cst.BaseExpression) -> Taint:
        """Taint of the tensor an ndarray expression was made from (empty: not one)."""
        if isinstance(e, cst.Name):
            return self._arrays.lookup(e.value)
        if isinstance(e, cst.Subscript):
            return self.array_taint(e.value)
        if isinstance(e, cst.BinaryOperation):
            return self.array_taint(e.left) | self.array_taint(e.right)
        if isinstance(e, cst.UnaryOperation):
            return self.array_taint(e.expression)
        if isinstance(e, cst.Attribute):
            return NO_TAINT if e.attr.value in _META else self.array_taint(e.value)
        if not isinstance(e, cst.Call):
            return NO_TAINT
        func = e.func
        q = self.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if q is not None and q.startswith("numpy."):
            out = NO_TAINT
            for a in e.args:
                out = out | (self.taint(a.value) if q in _ARRAY_FROM else NO_TAINT)
                out = out | self.array_taint(a.value)
            return out
        if isinstance(func, cst.Attribute):
            if func.attr.value == "numpy":
                return self.taint(func.value)
            if func.attr.value in ("tolist", "item"):
                return NO_TAINT
            return self.array_taint(func.value)
        return NO_TAINT

    def visit_Assign(self, node: cst.Assign) -> None:
        taint = self.array_taint(node.value)
        for t in node.targets:
            self._arrays.bind(t.target, taint)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("tolist", "item"):
            if node.args:
                return
            taint = self.array_taint(func.value)
            if taint:
                self.report(
                    node, requires=taint, conv=f".{func.attr.value}()", expr=self.code(func.value)
                )
        elif isinstance(func, cst.Name) and func.value in _CASTS and len(node.args) == 1:
            if func.value in self.w.imports or func.value in self.w.module_defs:
                return
            taint = self.array_taint(node.args[0].value)
            if taint:
                self.report(
                    node, requires=taint, conv=f"{func.value}()", expr=self.code(node.args[0].value)
                )
