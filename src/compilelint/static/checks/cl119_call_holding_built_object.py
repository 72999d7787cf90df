"""CL119: a breaking call in a frame that holds an object it built with a bound method of itself."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import AT_CALL
from compilelint.static.analysis.walker import iter_children
from compilelint.static.checks.base import Check


class CallHoldingBuiltObject(Check):
    """``sde = ForwardSDE(sde)`` then ``bm = BrownianInterval(...)`` then ``...(sde=sde)`` in
    traced code: the object built in the frame is live across a later call. Phase 2 keeps the
    call when one of its targets (a function, or the ``__init__`` of a class built) reaches a
    break, the object's class's ``__init__`` stores a bound method of the object
    (``self.g = self._zero``: ``FunctionFacts.binds_own_method``) and a later call of the
    function uses the object. torch 2.13 cannot rebuild such a method of an object built while
    tracing ("Reconstruction failure" of a sourceless ``UserMethodVariable``), so it cannot
    resume the frame after the callee's break: it breaks at the call and runs the whole
    function eagerly. An object without such a method, or one not used after the call, is
    rebuilt or dropped and the frame resumes (checked on torch 2.13)."""

    CODE = "CL119"

    def __init__(self, walker: object) -> None:
        super().__init__(walker)  # type: ignore[arg-type]
        # scope qual -> [(name, the call it was bound to, the class ref, its statement)]
        self._built: dict[str, list[tuple[str, cst.Call, str, object]]] = {}
        # scope qual -> [(held name, the candidate's args, its statement)] not yet seen live
        self._open: dict[str, list[tuple[str, dict[str, str], object]]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        w = self.w
        if w.func is None or w.untraced_depth:
            return
        self._statement(node)
        qual = w.scope.qual
        built = self._built.get(qual)
        if built:  # a name bound again holds what the new binding gives
            names = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
            if names:
                self._built[qual] = [b for b in built if b[0] not in names]
        if len(node.targets) != 1 or w.branch_depth or w.conds or w.in_loop:
            return  # a binding only some calls make is not what the frame surely holds
        target, value = node.targets[0].target, node.value
        if not isinstance(target, cst.Name) or not isinstance(value, cst.Call):
            return
        func = value.func
        last = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            last = func.value
        if not last or not last[:1].isupper() or last.isupper():
            return
        q = self.qualify(func) or ""
        if q.split(".", 1)[0] == "torch":
            return
        ref = w.callee_ref(func)
        if ref is not None:
            self._built.setdefault(w.scope.qual, []).append(
                (target.value, value, ref, w.current_stmt)
            )

    def _statement(self, node: cst.CSTNode) -> None:
        """A later statement that reads a held name makes the candidates about it live."""
        w = self.w
        pending = self._open.get(w.scope.qual)
        if not pending:
            return
        stmt = w.current_stmt
        if all(at is stmt for _n, _a, at in pending):
            return
        used = _names_in(node)
        keep = []
        for name, args, at in pending:
            if name in used and at is not stmt:
                args["live"] = "1"
            else:
                keep.append((name, args, at))
        self._open[w.scope.qual] = keep

    def visit_Return(self, node: cst.Return) -> None:
        if self.w.func is not None and not self.w.untraced_depth:
            self._statement(node)

    def visit_Expr(self, node: cst.Expr) -> None:
        if self.w.func is not None and not self.w.untraced_depth:
            self._statement(node)

    def visit_If(self, node: cst.If) -> None:
        if self.w.func is not None and not self.w.untraced_depth:
            self._statement(node.test)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.w.func is not None and not self.w.untraced_depth:
            self._statement(node)

    def visit_Call(self, node: cst.Call) -> None:
        w = self.w
        if w.func is None or w.untraced_depth:
            return
        qual = w.scope.qual
        stmt = w.current_stmt
        built = self._built.get(qual)
        if not built:
            return
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if any(func.value.value == name for name, *_ in built):
                return  # a method of the object itself: CL116's
        q = self.qualify(func) or ""
        if q.split(".", 1)[0] == "torch":
            return
        for name, _call, ref, at in built:
            if at is stmt:
                continue  # the binding's own statement
            before = len(w.pending)
            self.report(
                node,
                call=self.code(node, 60),
                held=name,
                held_ref=ref,
                cls=self.code(_call.func, 40),
                via=AT_CALL,
            )
            if len(w.pending) > before:
                self._open.setdefault(qual, []).append((name, w.pending[-1][3], stmt))


def _names_in(node: cst.CSTNode) -> set[str]:
    """The names an expression or small statement reads (not into nested functions)."""
    out: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)  # `sde.noise_type` reads `sde`, not a name `noise_type`
        elif not isinstance(n, (cst.Lambda, cst.FunctionDef)):
            stack.extend(iter_children(n))
    return out
