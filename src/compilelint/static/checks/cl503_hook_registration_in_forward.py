"""CL503: registering module hooks inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

_MODULE_HOOKS = frozenset(
    {
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
    }
)


class HookRegistrationInForward(Check):
    CODE = "CL503"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_HOOKS:
            self.report(node, method=func.attr.value)
