"""CL509: an ``nn.Module`` subclass with parameters built inside traced code (its ``__init__``
is traced)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from compilelint.static.checks.base import Check
from compilelint.static.checks.cl508_parameter_created_in_forward import _WITH_PARAMETERS


class ModuleBuiltInCompiledCode(Check):
    CODE = "CL509"

    def __init__(self, walker: Any) -> None:
        super().__init__(walker)
        self._super_init: dict[str, cst.Call] = {}  # __init__ qual -> its super().__init__()
        self._done: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        fn = self.w.func
        cls = self.w.cls
        if fn is None or cls is None or fn.name != "__init__" or fn.cls != cls.qual:
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
            recv = func.value
            if (
                isinstance(recv, cst.Call)
                and isinstance(recv.func, cst.Name)
                and recv.func.value == "super"
            ):
                self._super_init.setdefault(fn.qual, node)
            return
        q = self.qualify(func) or ""
        if not q.startswith("torch.nn.") or q.startswith("torch.nn.functional."):
            return
        if q.rsplit(".", 1)[-1] not in _WITH_PARAMETERS:
            return
        sup = self._super_init.get(fn.qual)
        if sup is None or fn.qual in self._done:
            return
        self._done.add(fn.qual)
        # kept when the class is an nn.Module (decided in phase 2) and this __init__ is traced
        self.report(
            sup,
            requires=frozenset((f"K|{cls.qual}",)),
            cls=cls.name,
            call=self.code(sup),
        )
