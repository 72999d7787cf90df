"""CL503: registering module hooks inside traced code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedTable

_MODULE_HOOKS = frozenset(
    {
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
    }
)


def _registration(e: cst.BaseExpression) -> str | None:
    """The hook method a call registers with (``m.register_forward_hook(fn)``), or None."""
    if type(e) is cst.Call and type(e.func) is cst.Attribute:  # type: ignore[attr-defined]
        meth = e.func.attr.value  # type: ignore[attr-defined]
        if meth in _MODULE_HOOKS:
            return meth
    return None


class HookRegistrationInForward(Check):
    CODE = "CL503"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        # local names bound to the handle a registration returns: the registration breaks the
        # graph, and the resume function after it gets the handle as an input, which it
        # cannot represent either (GB0013 "Attempted to represent unregistered
        # RemovableHandle"): the handle's first use breaks again (`handle.remove()`)
        self._handles: ScopedTable[str] = ScopedTable(walker)  # the registration's method

    def visit_Assign(self, node: cst.Assign) -> None:
        meth = _registration(node.value)
        if meth is not None or self._handles:
            for t in node.targets:
                self._handles.put(t.target, meth)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_HOOKS:
            self.report(node, method=func.attr.value, use="")
        if not self._handles:
            return
        operands = [a.value for a in node.args]
        if isinstance(func, cst.Attribute):
            operands.append(func.value)
        for e in operands:
            if not isinstance(e, cst.Name):
                continue
            meth = self._handles.get(e.value)
            if meth is not None:
                self._handles.drop(e.value)  # the first use only
                self.report(
                    node,
                    method=meth,
                    use=(
                        f" and returns `{e.value}`, used here in `{self.code(node, 40)}` (the "
                        "resume function after that break gets the handle and cannot represent it)"
                    ),
                )
                return
