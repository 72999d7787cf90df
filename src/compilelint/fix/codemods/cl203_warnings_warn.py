"""CL203: guard the `warnings.warn()` in traced code with `if not torch.compiler.is_compiling():`."""

from __future__ import annotations

from compilelint.fix.codemods.guard import GuardCall


class WarningsWarnGuard(GuardCall):
    CODE = "CL203"
    WHAT = "`warnings.warn()`"
