"""CL506: seeding a random number generator inside traced code."""

from __future__ import annotations

import libcst as cst

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


class ManualSeedInTracedCode(Check):
    CODE = "CL506"

    def visit_Call(self, node: cst.Call) -> None:
        q = self.qualify(node.func)
        if q in _SEEDS:
            self.report(node, call=q)
