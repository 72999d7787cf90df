"""CL113: a tensor used as a slice bound."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check
from compilelint.static.checks.cl101_tensor_dependent_branch import _names


class TensorSliceBound(Check):
    CODE = "CL113"

    def visit_Slice(self, node: cst.Slice) -> None:
        taint: frozenset[str] = frozenset()
        first: cst.BaseExpression | None = None
        for bound in (node.lower, node.upper, node.step):
            if bound is None:
                continue
            t = self.taint(bound)
            if t:
                taint = taint | t
                first = first or bound
        if first is not None:
            extra = {}
            name = self._path_dependent(first)
            if name is not None:
                extra["latent"] = (
                    f"latent: `{name}` is a tensor on some paths and a Python value on others "
                    "(an optional tensor argument replaced by Python numbers when it is not "
                    "given), so the inputs decide whether it breaks"
                )
            self.report(first, requires=taint, expr=self.code(first), **extra)

    def _path_dependent(self, bound: cst.BaseExpression) -> str | None:
        """A name in the bound that holds a tensor on some paths and Python numbers (or a
        tuple of them, or None) on others: ``image_sizes: Tensor | None = None`` then ``if
        image_sizes is None: image_sizes = [(h, w)] * b``."""
        for node in _names(bound):
            ms = list(V.members(self.w.value(node)))
            if any(V.sources(m) for m in ms) and any(m[0] in "SNQ" for m in ms):
                return node.value
        return None
