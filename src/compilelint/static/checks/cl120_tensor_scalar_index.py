"""CL120: a 0-d integer or bool tensor used as an index (``boxes[order[0]]``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check


class TensorScalarIndex(Check):
    CODE = "CL120"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = self.w.value(node.value)
        if base[0] in "DS" or all(m[0] in "DSNMF" for m in V.members(base)):
            return  # a dict keyed by tensors, a string, a type annotation
        for el in node.slice:
            it = el.slice
            if not isinstance(it, cst.Index):
                continue
            v = self.w.value(it.value)
            test = V.scalar_index(v)
            taint = V.sources(test)
            if not taint:
                continue
            dtypes = {V.tensor_meta(m)[1] for m in V.members(test) if m[0] == "T"}
            self.report(
                it.value,
                requires=taint,
                expr=self.code(it.value),
                dtype="bool" if dtypes == {"bool"} else "integer",
            )
            return
