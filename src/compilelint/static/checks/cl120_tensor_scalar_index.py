"""CL120: a 0-d integer or bool tensor used as an index (``boxes[order[0]]``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check


class TensorScalarIndex(Check):
    CODE = "CL120"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = self.w.value(node.value)
        k = base[0]
        if k in "DSNMF" or (k == "J" and all(m[0] in "DSNMF" for m in base[1])):
            return  # a dict keyed by tensors, a string, a type annotation
        for el in node.slice:
            it = el.slice
            if type(it) is not cst.Index:
                continue
            v = self.w.value(it.value)
            if v[0] not in "TJY":
                continue  # (``scalar_index`` has nothing else to find: no call for it)
            iv = it.value
            if type(iv) is cst.Name and self.w._is_param(iv.value) and not self._sequence(base):
                # the parameter as it came (``sigmas[step_index]``): no read where it is an
                # entry's own input (phase 2, ``!inp``) indexing a tensor; a Python list or
                # tuple reads it whatever it is (``Tensor.__index__``, GB0124)
                test = V.input_index(v)
            else:
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

    def _sequence(self, base: V.Value) -> bool:
        """Whether the indexed value is a Python list or tuple: a sequence value, or
        ``self.<attr>`` every assignment of which in its class makes one (``self.sigmas =
        sigmas.tolist()``)."""
        ms = V.members(base)
        if ms and all(m[0] == "Q" for m in ms):
            return True
        for m in ms:
            if m[0] == "Y" and isinstance(m[1], str) and m[1].startswith("A|"):
                _, cq, attr = m[1].split("|", 2)
                facts = self.w.classes.get(cq)
                vals = facts.attrs.get(attr, ()) if facts is not None else ()
                if vals and all(x[0] == "Q" for v in vals for x in V.members(v)):
                    return True
        return False
