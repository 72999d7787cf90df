"""CL511: ``<optimizer>.step()`` / ``.zero_grad()`` (or an LR scheduler's ``.step()``) inside
traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

# the methods dynamo breaks on (torch 2.13): ``Optimizer.step`` is wrapped by ``_use_grad``,
# which calls ``torch._dynamo.graph_break()`` (GB0025); ``Optimizer.zero_grad`` and
# ``LRScheduler.step`` are marked as skipped (GB0008)
_OPTIMIZER_METHODS = frozenset({"step", "zero_grad"})
_SCHEDULER_METHODS = frozenset({"step"})


class OptimizerCallInCompiledRegion(Check):
    CODE = "CL511"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        meth = func.attr.value
        if meth not in _OPTIMIZER_METHODS:
            return
        for cls in sorted(self._classes(self.w.value(func.value))):
            scheduler = V.is_scheduler(cls)
            if meth not in (_SCHEDULER_METHODS if scheduler else _OPTIMIZER_METHODS):
                continue
            self.report(
                node,
                call=f"{self.code(func.value, 40)}.{meth}()",
                kind="LR scheduler" if scheduler else "optimizer",
                cls=cls.rsplit(".", 1)[-1],
                why=_WHY[meth if not scheduler else "scheduler"],
            )
            return

    def _classes(self, v: V.Value) -> set[str]:
        """The ``torch.optim`` classes a value may be an instance of: an object value, or
        ``self.<attr>`` (``A|<class>|<attr>``) of a class of this file that assigns one."""
        out = V.object_classes(v)
        for m in V.members(v):
            if m[0] == "Y" and isinstance(m[1], str) and m[1].startswith("A|"):
                _, cls, attr = m[1].split("|", 2)
                facts = self.w.classes.get(cls)
                for a in facts.attrs.get(attr, ()) if facts is not None else ():
                    out |= V.object_classes(a)
        return {c for c in out if c.startswith(V.OPTIMIZER_PREFIX)}


_WHY = {
    "step": "`Optimizer.step` runs under `_use_grad`, which calls `torch._dynamo.graph_break()` (GB0025)",
    "zero_grad": "dynamo does not trace `Optimizer.zero_grad` (marked as skipped, GB0008)",
    "scheduler": "dynamo does not trace `LRScheduler.step` (marked as skipped, GB0008)",
}
