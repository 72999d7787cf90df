"""CL204: guard the debugger call in traced code with `if not torch.compiler.is_compiling():`."""

from __future__ import annotations

from compilelint.fix.codemods.guard import GuardCall


class DebuggerCallGuard(GuardCall):
    CODE = "CL204"
    WHAT = "debugger call"
    ALLOW_IMPORTS = True
