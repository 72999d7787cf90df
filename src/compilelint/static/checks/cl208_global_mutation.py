"""CL208: updating a ``global`` / ``nonlocal`` counter inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker, Scope
from compilelint.static.checks.base import Check


def _counter_step(value: cst.BaseExpression, name: str | None) -> bool:
    """A numeric literal step (``1``, ``-1``, ``0.5``); with ``name``: ``name <op> literal``."""
    if name is None:
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        return isinstance(value, (cst.Integer, cst.Float))
    if not isinstance(value, cst.BinaryOperation):
        return False
    left, right = value.left, value.right
    if isinstance(left, cst.Name) and left.value == name:
        return _counter_step(right, None)
    if isinstance(right, cst.Name) and right.value == name:
        return _counter_step(left, None)
    return False


class GlobalMutation(Check):
    CODE = "CL208"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        # scope -> name -> "global"/"nonlocal" (keyed by the scope itself, which hashes by
        # identity: the table holds it, so a later scope never reads a freed one's names)
        self._declared: dict[Scope, dict[str, str]] = {}

    def _declare(self, names: list[cst.NameItem], kind: str) -> None:
        got = self._declared.setdefault(self.w.scope, {})
        for item in names:
            got[item.name.value] = kind

    def visit_Global(self, node: cst.Global) -> None:
        self._declare(list(node.names), "global")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._declare(list(node.names), "nonlocal")

    def _kind(self, target: cst.BaseExpression) -> str | None:
        if not isinstance(target, cst.Name):
            return None
        entry = self._declared.get(self.w.scope)
        return entry.get(target.value) if entry is not None else None

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        kind = self._kind(node.target)
        if kind and _counter_step(node.value, None):
            self.report(node, kind=kind, name=node.target.value)  # type: ignore[attr-defined]

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        tgt = node.targets[0].target
        kind = self._kind(tgt)
        if kind and _counter_step(node.value, tgt.value):  # type: ignore[attr-defined]
            self.report(node, kind=kind, name=tgt.value)  # type: ignore[attr-defined]
