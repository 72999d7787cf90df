"""CL402: compiling a whole model made of N identical blocks: compile the block instead."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check


class RegionalCompilation(Check):
    CODE = "CL402"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._instances: dict[tuple[str, str], str] = {}  # (function, name) -> class qual

    def _class_of_ctor(self, call: cst.BaseExpression) -> str | None:
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
            name = call.func.value
            if name in self.w.module_defs and name in self.w.classes:
                return name
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        cls = self._class_of_ctor(node.value)
        scope = self.w.func.qual if self.w.func is not None else ""
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                key = (scope, t.target.value)
                if cls is not None:
                    self._instances[key] = cls
                else:
                    self._instances.pop(key, None)

    def _class_of(self, expr: cst.BaseExpression) -> str | None:
        cls = self._class_of_ctor(expr)
        if cls is not None:
            return cls
        if isinstance(expr, cst.Name):
            scope = self.w.func.qual if self.w.func is not None else ""
            return self._instances.get((scope, expr.value))
        return None

    def _repeated(self, cls: str, depth: int = 0) -> tuple[str, str] | None:
        """(attribute path, block class) of the first repeated block under class ``cls``."""
        cf = self.w.classes.get(cls)
        if cf is None or depth > 4:
            return None
        for attr, refs in cf.attr_classes.items():
            for r in refs:
                if r.startswith("*Q|"):
                    return attr, r[3:].rsplit(".", 1)[-1]
        for attr, refs in cf.attr_classes.items():
            for r in refs:
                if r.startswith("Q|"):
                    inner = self._repeated(r[2:], depth + 1)
                    if inner is not None:
                        return f"{attr}.{inner[0]}", inner[1]
        return None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        target: cst.BaseExpression | None = None
        if self.qualify(func) == "torch.compile" and node.args and node.args[0].keyword is None:
            target = node.args[0].value
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value == "compile"
            and isinstance(func.value, cst.Name)
            and self.qualify(func) != "torch.compile"
        ):
            target = func.value
        if target is None:
            return
        cls = self._class_of(target)
        if cls is None:
            return
        got = self._repeated(cls)
        if got is None:
            return
        attr, block = got
        self.report(node, scope="any", model=cls, attr=attr, block=block, var=self.code(target, 30))
