"""CL202: guard the logging call in traced code with `if not torch.compiler.is_compiling():`."""

from __future__ import annotations

from compilelint.fix.codemods.guard import GuardCall


class LoggingCallGuard(GuardCall):
    CODE = "CL202"
    WHAT = "logging call"
