"""CL210: calling a ``torch.compiler.disable``-d function from compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker, code_of, self_attr
from compilelint.static.checks.base import Check

_DISABLE = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._disable_dynamo",
        "torch._dynamo.eval_frame.disable",
    }
)


class CompilerDisabledCall(Check):
    CODE = "CL210"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._funcs: set[str] = set()  # module-level disabled functions (and wrappers)
        self._methods: dict[str, set[str]] = {}  # class name -> disabled method names
        self._pending_fn: list[cst.FunctionDef] = []
        self._pending_meth: list[tuple[str, cst.FunctionDef]] = []
        self._pending_wrap: list[tuple[str, cst.Call]] = []

    def _is_disable(self, e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.Call):
            e = e.func
        return self.qualify(e) in _DISABLE

    def _disabled_def(self, fn: cst.FunctionDef) -> bool:
        return any(self._is_disable(d.decorator) for d in fn.decorators)

    def visit_Module(self, node: cst.Module) -> None:
        # Top-level definitions may come after their callers: collect them up front. Imports
        # are resolved lazily, so only the statement shapes are looked at here.
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef):
                self._pending_fn.append(stmt)
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                for st in stmt.body.body:
                    if isinstance(st, cst.FunctionDef) and st.decorators:
                        self._pending_meth.append((stmt.name.value, st))
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if (
                        isinstance(small, cst.Assign)
                        and isinstance(small.value, cst.Call)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                    ):
                        self._pending_wrap.append((small.targets[0].target.value, small.value))

    def module_signature(self, node: cst.Module) -> tuple[object, ...]:
        """What ``visit_Module`` reads of the module, as text (``analysis.resume``): the
        names and decorators of top-level functions and of decorated methods, and the
        ``name = call(...)`` statements; equal signatures resolve to the same disabled names."""

        def code(n: cst.CSTNode) -> str:
            return code_of(node, n)

        out: list[object] = []
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef):
                out.append(("f", stmt.name.value, *(code(d.decorator) for d in stmt.decorators)))
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                for st in stmt.body.body:
                    if isinstance(st, cst.FunctionDef) and st.decorators:
                        out.append(
                            (
                                "m",
                                stmt.name.value,
                                st.name.value,
                                *(code(d.decorator) for d in st.decorators),
                            )
                        )
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if (
                        isinstance(small, cst.Assign)
                        and isinstance(small.value, cst.Call)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                    ):
                        call = small.value
                        out.append(
                            ("w", small.targets[0].target.value, code(call.func), bool(call.args))
                        )
        return tuple(out)

    def _resolve_pending(self) -> None:
        # Decorators are qualified through imports, which are all known once a function body
        # is being walked.
        for fn in self._pending_fn:
            if fn.decorators and self._disabled_def(fn):
                self._funcs.add(fn.name.value)
        for cls_name, fn in self._pending_meth:
            if self._disabled_def(fn):
                self._methods.setdefault(cls_name, set()).add(fn.name.value)
        for name, call in self._pending_wrap:
            if self.qualify(call.func) in _DISABLE and call.args:
                self._funcs.add(name)
        self._pending_fn, self._pending_meth, self._pending_wrap = [], [], []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not self.w.in_function:
            return
        if self._pending_fn or self._pending_meth or self._pending_wrap:
            self._resolve_pending()
        if not self._funcs and not self._methods:
            return  # nothing disabled in this file: no call can be one (most files)
        if isinstance(func, cst.Name):
            name = func.value
            if name in self._funcs and self.w.name_ref(name) == f"Q|{name}":
                self.report(node, func=name)
        elif (attr := self_attr(func)) is not None and self.w.cls is not None:
            cls_name = self.w.cls.qual.rsplit(".", 1)[-1]
            if attr in self._methods.get(cls_name, ()):
                self.report(node, func=f"self.{attr}")
