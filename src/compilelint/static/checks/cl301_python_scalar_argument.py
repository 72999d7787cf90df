"""CL301: a Python number argument of a compiled entry point that dynamo specializes on.

Two places show it: the compiled function itself (a parameter annotated or defaulted as a number,
passed to a specialising op), and a call site of a compiled function of the same file that passes
a value changing from call to call (the loop variable of a ``for`` around the call, or different
literals at different call sites) to a parameter the callee's guard facts
(:mod:`compilelint.static.analysis.guards`) show it needs as a constant.
"""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import FunctionFacts
from compilelint.static.analysis.guards import SPECIALIZING_OPS, literal
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check

# torch.nn.functional ops whose Python-number arguments dynamo bakes into the graph: one list,
# shared with the recompile prediction (compilelint.static.analysis.guards)
_SPECIALIZING = SPECIALIZING_OPS
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

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._scalars: dict[str, dict[str, str]] = {}  # function qual -> {param: kind}
        self._assigned: dict[str, set[str]] = {}  # function qual -> names rebound in it
        self._compiled_names: dict[str, str] = {}  # `step = torch.compile(fn)` -> "fn"
        self._literals: dict[tuple[str, str], set[object]] = {}  # (callee, param) -> values

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
        v = node.value
        if (
            self.w.func is None
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(v, cst.Call)
            and v.args
            and isinstance(v.args[0].value, cst.Name)
            and (self.qualify(v.func) or "") in N.COMPILE_CALLS
        ):
            self._compiled_names[node.targets[0].target.value] = v.args[0].value.value

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._rebind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._rebind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._rebind(node.target)

    def _compiled_callee(self, func: cst.BaseExpression) -> FunctionFacts | None:
        """The facts of the same-file function a call reaches when it is compiled (decorated
        with ``torch.compile``, or called through a module-level ``name = torch.compile(f)``)."""
        if not isinstance(func, cst.Name):
            return None
        name = func.value
        target = self._compiled_names.get(name)
        if target is None and self.w.func is not None and self.w.shadowed(name):
            if name not in self.w.module_defs:
                return None
        qual = self.w.module_defs.get(target or name)
        fn = self.w.functions.get(qual) if qual else None
        if fn is None or not (fn.compiled or target is not None):
            return None
        return fn

    def _call_site(self, node: cst.Call) -> None:
        """A call of a compiled function passing a value that changes between calls to a
        parameter the callee needs as a constant (``range(n)``, a functional op's argument)."""
        callee = self._compiled_callee(node.func)
        if callee is None:
            return
        special = {r[0]: r for r in callee.guards if r[1] == "specialize"}
        if not special:
            return
        params = [p for p in callee.params if p.index >= 0]
        for i, a in enumerate(node.args):
            if a.star:
                return
            if a.keyword is not None:
                pname = a.keyword.value
            elif i < len(params):
                pname = params[i].name
            else:
                continue
            if pname not in special:
                continue
            val = self.w.value(a.value)
            if not V.is_scalar(val) or any(m[0] == "N" for m in V.members(val)):
                continue
            ok, lit = literal(a.value)
            c = lit if ok else V.const(val)
            use = f"`{callee.name}()` (compiled), which needs it as a constant"
            if c is ... and self.w.in_loop:
                self.report(
                    a.value,
                    scope="any",
                    name=self.code(a.value, 30),
                    use=use + "; the loop passes a new value on every iteration",
                )
            elif c is not ... and not isinstance(c, bool):
                seen = self._literals.setdefault((callee.qual, pname), set())
                seen.add(c)
                if len(seen) > 1:
                    self.report(
                        a.value,
                        scope="any",
                        name=self.code(a.value, 30),
                        use=use + "; the call sites pass different values",
                    )

    def visit_Call(self, node: cst.Call) -> None:
        func0 = node.func
        if (
            (self._compiled_names or self.w.functions)
            and type(func0) is cst.Name
            and (func0.value in self._compiled_names or func0.value in self.w.module_defs)
        ):
            # only a call by name of a function this file compiles or defines can be one
            # (``_compiled_callee``); every call comes here
            self._call_site(node)
        fn = self.w.func
        if fn is None or fn.qual not in self._scalars:
            return
        func = node.func
        q = self.qualify(func) or ""
        if q.startswith(_F_PREFIXES) and q.rsplit(".", 1)[-1] in _SPECIALIZING:
            for a in node.args:
                name = self._param(a.value, ("float", "int"))
                if name is not None:
                    self.report(a.value, name=name, use=f"`{q.rsplit('.', 1)[-1]}()`", entry="1")
            return
        if isinstance(func, cst.Name) and func.value == "range" and "range" not in self.w.imports:
            for a in node.args:
                name = self._param(a.value, ("int",))
                if name is not None:
                    self.report(a.value, name=name, use="`range()`", entry="1")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in _SHAPE_METHODS:
            recv = self.taint(func.value)
            for a in node.args:
                name = self._param(a.value, ("int",))
                if name is not None:
                    self.report(
                        a.value, requires=recv, name=name, use=f"`.{func.attr.value}()`", entry="1"
                    )
