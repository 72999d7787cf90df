"""CL501: an int counter or a Python list on ``self`` mutated in traced code (recompiles)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker, ordered_children, self_attr
from compilelint.static.checks.base import Check

_LIST_CTORS = frozenset({"list", "deque", "collections.deque"})
_GROW = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})


def _mentions(node: cst.CSTNode, attr: str) -> bool:
    """Whether ``self.<attr>`` occurs in a (small) expression."""
    if self_attr(node) == attr:
        return True
    return any(_mentions(c, attr) for c in ordered_children(node))


class ModuleAttributeMutation(Check):
    CODE = "CL501"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._kinds: dict[str, dict[str, str]] = {}  # class qual -> {attr: "int" | "list"}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cf = self.w.classes.get(self._qual(node))
        if cf is None or not isinstance(node.body, cst.IndentedBlock):
            return
        kinds: dict[str, str] = {}
        for st in node.body.body:
            if isinstance(st, cst.FunctionDef) and st.name.value == "__init__":
                self._scan_init(st.body, kinds, 0)
        if kinds:
            self._kinds[cf.qual] = kinds

    def _qual(self, node: cst.ClassDef) -> str:
        outer = self.w.cls
        return f"{outer.qual}.{node.name.value}" if outer is not None else node.name.value

    def _scan_init(self, body: cst.BaseSuite, kinds: dict[str, str], depth: int) -> None:
        if not isinstance(body, cst.IndentedBlock) or depth > 2:
            return
        for st in body.body:
            if isinstance(st, cst.If):
                self._scan_init(st.body, kinds, depth + 1)
                continue
            if not isinstance(st, cst.SimpleStatementLine):
                continue
            for small in st.body:
                if isinstance(small, cst.Assign):
                    targets, value = [t.target for t in small.targets], small.value
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    targets, value = [small.target], small.value
                else:
                    continue
                kind = self._value_kind(value)
                for t in targets:
                    attr = self_attr(t)
                    if attr is None:
                        continue
                    if kind is None or kinds.get(attr, kind) != kind:
                        kinds[attr] = "other"
                    else:
                        kinds[attr] = kind

    def _value_kind(self, value: cst.BaseExpression) -> str | None:
        v = value.expression if isinstance(value, cst.UnaryOperation) else value
        if isinstance(v, cst.Integer):
            return "int"
        if isinstance(value, cst.List) and not value.elements:
            return "list"
        if isinstance(value, cst.Call) and (self.qualify(value.func) or "") in _LIST_CTORS:
            return "list"
        return None

    def _kind(self, attr: str) -> str | None:
        cls = self.w.cls
        fn = self.w.func
        if cls is None or fn is None or fn.cls != cls.qual or fn.name == "__init__":
            return None
        return self._kinds.get(cls.qual, {}).get(attr)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        attr = self_attr(node.target)
        if attr is not None and self._kind(attr) == "int":
            self.report(node, attr=attr, what="an int attribute: dynamo guards on its value")

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            attr = self_attr(t.target)
            if attr is not None and self._kind(attr) == "int" and _mentions(node.value, attr):
                self.report(node, attr=attr, what="an int attribute: dynamo guards on its value")
                return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _GROW):
            return
        attr = self_attr(func.value)
        if attr is not None and self._kind(attr) == "list":
            self.report(
                node, attr=attr, what="a Python list (or deque): dynamo guards on its length"
            )
