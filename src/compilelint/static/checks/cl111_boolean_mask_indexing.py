"""CL111: indexing a tensor with a boolean mask (``x[x > 0]``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker, code_of
from compilelint.static.checks.base import Check, ScopedNames

# Tensor methods and torch functions that return a boolean tensor (the fix codemods read it too).
BOOL_METHODS = frozenset(
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
        "any",
        "all",
    }
)
# Tensor methods that keep the dtype (and so a boolean mask stays one): shape, layout, device.
_KEEP_METHODS = frozenset(
    {
        "unsqueeze",
        "squeeze",
        "view",
        "reshape",
        "expand",
        "expand_as",
        "flatten",
        "contiguous",
        "clone",
        "detach",
        "cpu",
        "cuda",
        "transpose",
        "permute",
        "t",
        "repeat",
        "flip",
        "roll",
    }
)
# Annotations that say a parameter is a boolean tensor.
_BOOL_ANNOTATIONS = ("BoolTensor",)
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
            if meth in _KEEP_METHODS or (meth == "to" and self._keeps_dtype(e)):
                q = self.qualify(e.func)
                if q is not None and q.startswith("torch."):
                    return NO_TAINT  # torch.flatten & co: see the function forms below
                return self.mask_taint(e.func.value)  # m.unsqueeze(-1), m.to(x.device)
            if meth not in BOOL_METHODS and not (meth == "to" and self._to_bool(e)):
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

    def _keeps_dtype(self, call: cst.Call) -> bool:
        """``.to(device)`` / ``.to(device=..., non_blocking=True)``: no dtype, no other tensor."""
        for a in call.args:
            if a.keyword is not None:
                if a.keyword.value in ("dtype", "other"):
                    return False
                continue
            q = self.qualify(a.value) or ""
            if q.startswith("torch.") and q != "torch.device" and not q.startswith("torch.device"):
                return False  # .to(torch.float16), .to(torch.bool) is handled by _to_bool
            if self.taint(a.value):
                return False  # .to(other): other's dtype
            if isinstance(a.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue  # .to("cpu")
        return bool(call.args)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """Parameters annotated as boolean tensors (``mask: torch.BoolTensor | None``)."""
        qual = self.w.scope.qual
        p = node.params
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            ann = prm.annotation
            if ann is None:
                continue
            text = code_of(self.w.module, ann.annotation)
            if any(w in text for w in _BOOL_ANNOTATIONS):
                self._masks.bind(prm.name, frozenset((f"P|{qual}|{prm.name.value}",)))

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
                # a mask by its form here (`x > 0`, `m.bool()`), else by the value model's dtype
                # (a spec's bool input, `torch.eye(n, dtype=torch.bool)`, a helper's return)
                taint = self.mask_taint(sl.value) or V.sources(V.bool_mask(self.w.value(sl.value)))
                if taint and self.taint(node.value):
                    self.report(node, requires=taint, mask=self.code(sl.value))
                    return
