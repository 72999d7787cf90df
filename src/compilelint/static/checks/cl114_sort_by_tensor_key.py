"""CL114: ``sorted``/``min``/``max``/``list.sort`` with a ``key=`` over tensors."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

_BUILTINS = frozenset({"sorted", "min", "max"})


class SortByTensorKey(Check):
    CODE = "CL114"

    def visit_Call(self, node: cst.Call) -> None:
        key = next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "key"), None
        )
        if key is None:
            return
        func = node.func
        items: cst.BaseExpression | None = None
        if (
            isinstance(func, cst.Name)
            and func.value in _BUILTINS
            and not self.w.shadowed(func.value)
        ):
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) == 1:
                items = positional[0].value
        elif isinstance(func, cst.Attribute) and func.attr.value == "sort":
            items = func.value
        if items is None or (isinstance(key.value, cst.Name) and key.value.value == "len"):
            return
        taint = V.sources(V.iter_elem(self.w.value(items)))
        if taint and not self._static_key(key.value):
            self.report(node, requires=taint, expr=self.code(node))

    @staticmethod
    def _static_key(key: cst.BaseExpression) -> bool:
        """``key=lambda t: t.shape[0]`` / ``t.numel()``: a key from sizes is a Python int."""
        if not isinstance(key, cst.Lambda):
            return False
        body = key.body
        if isinstance(body, cst.Subscript):
            body = body.value
        if isinstance(body, cst.Attribute):
            return body.attr.value in ("shape", "ndim", "dtype", "device")
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Attribute):
            return body.func.attr.value in ("size", "dim", "numel")
        return False
