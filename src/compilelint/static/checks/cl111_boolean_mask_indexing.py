"""CL111: indexing a tensor with a boolean mask (``x[x > 0]``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

# Tensor methods and torch functions that return a boolean tensor.
_BOOL_METHODS = frozenset(
    {
        "bool",
        "isnan",
        "isinf",
        "isfinite",
        "isposinf",
        "isneginf",
        "isreal",
        "signbit",
        "logical_not",
        "logical_and",
        "logical_or",
        "logical_xor",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "greater",
        "less",
        "greater_equal",
        "less_equal",
        "not_equal",
        "isin",
        "isclose",
    }
)
_CMP_OPS = (
    cst.LessThan,
    cst.GreaterThan,
    cst.LessThanEqual,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


class BooleanMaskIndexing(Check):
    CODE = "CL111"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._masks = ScopedNames(walker)  # name -> taint of a boolean mask
        self._stores: set[int] = set()

    # -- names bound to boolean masks ------------------------------------------------------

    def mask_taint(self, e: cst.BaseExpression) -> Taint:
        """The tensor taint of ``e`` when it is certainly a boolean tensor, else empty."""
        if isinstance(e, cst.Comparison):
            if all(isinstance(c.operator, _CMP_OPS) for c in e.comparisons):
                return self.taint(e)
            return NO_TAINT
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
            return self.mask_taint(e.expression)
        if isinstance(e, cst.BinaryOperation) and isinstance(
            e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)
        ):
            return self.mask_taint(e.left) | self.mask_taint(e.right)
        if isinstance(e, cst.Name):
            return self._masks.lookup(e.value)
        if isinstance(e, cst.Subscript):
            return self.mask_taint(e.value)  # a slice of a mask is a mask
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
            meth = e.func.attr.value
            if meth not in _BOOL_METHODS and not (meth == "to" and self._to_bool(e)):
                return NO_TAINT
            q = self.qualify(e.func)
            if q is not None and q.startswith("torch."):
                return self.taint(e) if q == f"torch.{meth}" else NO_TAINT
            return self.taint(e.func.value)
        return NO_TAINT

    def _to_bool(self, call: cst.Call) -> bool:
        return any(
            (a.keyword is None or a.keyword.value == "dtype")
            and self.qualify(a.value) == "torch.bool"
            for a in call.args
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        taint = self.mask_taint(node.value)
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name):
                self._masks.bind(tgt, taint)
            elif isinstance(tgt, cst.Subscript):
                self._stores.add(id(tgt))  # x[mask] = v is an in-place masked fill: no break

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._masks.bind(node.target, NO_TAINT)

    # -- the indexing itself -------------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self._stores:
            return
        for el in node.slice:
            sl = el.slice
            if isinstance(sl, cst.Index) and sl.star is None:
                taint = self.mask_taint(sl.value)
                if taint and self.taint(node.value):
                    self.report(node, requires=taint, mask=self.code(sl.value))
                    return
