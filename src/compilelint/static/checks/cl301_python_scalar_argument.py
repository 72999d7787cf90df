"""CL301: a Python number argument of a compiled entry point that dynamo specializes on."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

# torch.nn.functional ops whose Python-number arguments dynamo bakes into the graph as constants
# (verified on torch 2.13: one recompile per distinct value, up to the recompile limit).
_SPECIALIZING = frozenset(
    {
        "layer_norm",
        "rms_norm",
        "group_norm",
        "batch_norm",
        "instance_norm",
        "dropout",
        "scaled_dot_product_attention",
        "interpolate",
        "upsample",
    }
)
_F_PREFIXES = ("torch.nn.functional.",)
_SHAPE_METHODS = frozenset({"view", "reshape"})


def _scalar_kind(prm: cst.Param) -> str | None:
    ann = prm.annotation.annotation if prm.annotation is not None else None
    if isinstance(ann, cst.Name) and ann.value in ("float", "int"):
        return ann.value
    d = prm.default
    if isinstance(d, cst.UnaryOperation):
        d = d.expression
    if ann is None and isinstance(d, cst.Float):
        return "float"
    if ann is None and isinstance(d, cst.Integer):
        return "int"
    return None


class PythonScalarArgument(Check):
    CODE = "CL301"

    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._scalars: dict[str, dict[str, str]] = {}  # function qual -> {param: kind}
        self._assigned: dict[str, set[str]] = {}  # function qual -> names rebound in it

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.w.func
        if fn is None or not (fn.compiled or (fn.cls is not None and fn.name == "forward")):
            return
        p = node.params
        got = {}
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            kind = _scalar_kind(prm)
            if kind is not None:
                got[prm.name.value] = kind
        if got:
            self._scalars[fn.qual] = got

    def _param(self, expr: cst.BaseExpression, kinds: tuple[str, ...]) -> str | None:
        fn = self.w.func
        if fn is None or not isinstance(expr, cst.Name):
            return None
        params = self._scalars.get(fn.qual)
        if not params or params.get(expr.value) not in kinds:
            return None
        if expr.value in self._assigned.get(fn.qual, ()):
            return None  # rebound in the function: no longer the caller's value
        return expr.value

    def _rebind(self, target: cst.BaseExpression) -> None:
        fn = self.w.func
        if fn is None or fn.qual not in self._scalars:
            return
        if isinstance(target, cst.Name):
            self._assigned.setdefault(fn.qual, set()).add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._rebind(el.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._rebind(t.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._rebind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._rebind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._rebind(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        fn = self.w.func
        if fn is None or fn.qual not in self._scalars:
            return
        func = node.func
        q = self.qualify(func) or ""
        if q.startswith(_F_PREFIXES) and q.rsplit(".", 1)[-1] in _SPECIALIZING:
            for a in node.args:
                name = self._param(a.value, ("float", "int"))
                if name is not None:
                    self.report(a.value, name=name, use=f"`{q.rsplit('.', 1)[-1]}()`")
            return
        if isinstance(func, cst.Name) and func.value == "range" and "range" not in self.w.imports:
            for a in node.args:
                name = self._param(a.value, ("int",))
                if name is not None:
                    self.report(a.value, name=name, use="`range()`")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in _SHAPE_METHODS:
            recv = self.taint(func.value)
            for a in node.args:
                name = self._param(a.value, ("int",))
                if name is not None:
                    self.report(a.value, requires=recv, name=name, use=f"`.{func.attr.value}()`")
