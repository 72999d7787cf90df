"""CL201: guard the `print()` in traced code with `if not torch.compiler.is_compiling():`."""

from __future__ import annotations

from compilelint.fix.codemods.guard import GuardCall


class PrintCallGuard(GuardCall):
    CODE = "CL201"
    WHAT = "`print()`"
