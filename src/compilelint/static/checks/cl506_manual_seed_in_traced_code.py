"""CL506: seeding, creating or passing a random number generator inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import conds as C
from compilelint.static.checks.base import Check

_SEEDS = frozenset(
    {
        "torch.manual_seed",
        "torch.random.manual_seed",
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
        "random.seed",
    }
)
_GENERATOR = "torch.Generator"


class ManualSeedInTracedCode(Check):
    CODE = "CL506"

    def visit_Call(self, node: cst.Call) -> None:
        q = self.qualify(node.func)
        if q in _SEEDS:
            self.report(node, call=q, why="dynamo skips this function")
            return
        if q == _GENERATOR:
            # an opaque object created while tracing (GB0363); its methods and the draws that
            # take it break again
            self.report(node, call=q, why="a `torch.Generator` is an opaque object to dynamo")
            return
        gen = None
        for a in node.args:
            kw = a.keyword
            if kw is not None and kw.value == "generator":
                gen = a.value
                break
        if gen is None or (isinstance(gen, cst.Name) and gen.value == "None"):
            return
        # `generator=generator` passing a parameter on: `generator=None` is traced, so the
        # draw breaks only where a caller passes one (a condition the call-site values decide:
        # diffusers' `randn_tensor(..., generator=generator)` under `step(..., generator=None)`)
        n = len(self.w.conds)
        if isinstance(gen, cst.Name) and self.w._cond_param(gen.value):
            self.w.conds.append(self.w.param_cond(C.encode(gen.value, "isnot", None)))
        try:
            self._report_draw(node, q)
        finally:
            del self.w.conds[n:]

    def _report_draw(self, node: cst.Call, q: str | None) -> None:
        why = "a draw that takes a `torch.Generator` cannot be put in the graph"
        func = node.func
        if q is not None and q.startswith("torch."):
            self.report(node, call=q, why=why)
        elif isinstance(func, cst.Attribute):  # `x.normal_(generator=g)` on a tensor
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, call=self.code(func), why=why)
