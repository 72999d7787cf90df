"""CL502: changing ``requires_grad`` of a tensor inside traced code."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check

_NEW_VALUE = (cst.Call, cst.BinaryOperation, cst.UnaryOperation)


def _tensor_copy(e: cst.BaseExpression) -> bool:
    """``<x>.detach()`` / ``<x>.clone()`` (or a chain ending in one): only tensors have both."""
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value in ("detach", "clone")
        and isinstance(e.func.value, (cst.Call, cst.Attribute))
        and not e.args
    )


# reads of a tensor that give no tensor carrying its autograd history
_NO_HISTORY_METHODS = frozenset({"detach", "item", "tolist", "numel", "size", "dim", "data_ptr"})
_NO_HISTORY_ATTRS = frozenset({"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda"})


def _tensor_reads(e: cst.BaseExpression) -> list[str]:
    """Local names an expression computes its value from, leaving out reads that give no tensor
    with the name's history (``x.shape``, ``x.detach()``, ``len(x)``)."""
    out: list[str] = []
    stack: list[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.append(n.value)
            continue
        if isinstance(n, cst.Call):
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in _NO_HISTORY_METHODS:
                continue
            if isinstance(f, cst.Name) and f.value in ("len", "isinstance", "type", "id"):
                continue
            if isinstance(f, cst.Attribute):
                stack.append(f.value)
            stack.extend(a.value for a in n.args)
            continue
        if isinstance(n, cst.Attribute):
            if n.attr.value not in _NO_HISTORY_ATTRS:
                stack.append(n.value)
            continue
        if isinstance(n, (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
            continue
        stack.extend(c for c in n.children if isinstance(c, cst.CSTNode))
    return out


class RequiresGradChange(Check):
    CODE = "CL502"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._created: set[tuple[str, str]] = set()  # (function, name) bound to a computed value
        # (function, name) -> requires_grad_() calls on an intermediate not returned (yet)
        self._pending: dict[tuple[str, str], list[cst.Call]] = {}
        self._returned: set[int] = set()  # ids of nodes inside return values
        self._named: dict[int, str] = {}  # id of `t = <new>.requires_grad_()` call -> `t`
        self._depth: dict[int, int] = {}  # id of a pending call -> its loop depth
        # (function, name) -> requires_grad_() calls not differentiated (yet)
        self._grad_pending: dict[tuple[str, str], list[cst.Call]] = {}
        self._reported: set[int] = set()
        # (function, name) -> requires_grad_() calls before a `.backward()`, reported when the
        # name is read after it
        self._after_backward: dict[tuple[str, str], list[cst.Call]] = {}
        # (function, name) -> requires_grad_() calls on an intermediate the name holds, or
        # holds a tensor computed from (siren's `coords = self.grid.clone().detach()
        # .requires_grad_()`, then `out = self.net(coords)`): returned, it leaks (GB8985)
        self._holds: dict[tuple[str, str], list[cst.Call]] = {}
        self._derived: dict[tuple[str, str], list[cst.Call]] = {}

    def _is_intermediate(self, recv: cst.BaseExpression) -> bool:
        if isinstance(recv, _NEW_VALUE):
            return True
        fn = self.w.func
        return (
            fn is not None and isinstance(recv, cst.Name) and (fn.qual, recv.value) in self._created
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.qualify(func) == "torch.autograd.grad":
            self._differentiated(node)
            return
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "backward"
            and self.taint(func.value)
        ):
            self._backward()
            return
        if self._after_backward:
            for a in node.args:
                if isinstance(a.value, cst.Name):
                    self._read_after_backward(a.value.value)
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            # On an input or a parameter it always breaks (GB0125); on a tensor computed in the
            # region only when it reaches the output (GB8985), which is not decided here.
            if self._is_intermediate(func.value):
                self._intermediate(node, func.value)
                return
            taint = self.taint(func.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(node))

    def _target(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
            taint = self.taint(target.value)
            if taint:
                self.report(node, requires=taint, expr=self.code(target))

    def visit_Assign(self, node: cst.Assign) -> None:
        fn = self.w.func
        v = node.value
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(v, cst.Call)
            and isinstance(v.func, cst.Attribute)
            and v.func.attr.value == "requires_grad_"
        ):
            self._named[id(v)] = node.targets[0].target.value
        if self._holds or self._derived:
            self._derive(node.targets, node.value)
        for t in node.targets:
            self._target(t.target, node)
            if fn is not None and isinstance(t.target, cst.Name):
                key = (fn.qual, t.target.value)
                if isinstance(node.value, _NEW_VALUE):
                    self._created.add(key)
                else:
                    self._created.discard(key)

    def _intermediate(self, node: cst.Call, recv: cst.BaseExpression) -> None:
        """``requires_grad_()`` on a tensor computed here breaks when it is returned (GB8985)."""
        if id(node) in self._returned:
            taint = self.taint(recv)
            if taint:
                self.report(node, requires=taint, expr=self.code(node))
            return
        fn = self.w.func
        if fn is None:
            return
        if isinstance(recv, cst.Name):
            self._pending.setdefault((fn.qual, recv.value), []).append(node)
        # `t = <new>.requires_grad_()` / `t.requires_grad_()`: reported when `t` is
        # differentiated (returning `t` itself is the case above)
        name = recv.value if isinstance(recv, cst.Name) else self._named.get(id(node))
        if name is not None:
            self._holds.setdefault((fn.qual, name), []).append(node)
            self._grad_pending.setdefault((fn.qual, name), []).append(node)
            self._depth[id(node)] = self.w.loop_depth

    def _differentiated(self, node: cst.Call) -> None:
        """``torch.autograd.grad(out, t)`` of a ``t`` given ``requires_grad_()`` here: the
        gradient breaks the graph (GB9186, CL504), and ``t`` leaks out of the graph before it
        (GB8985 at the ``requires_grad_()``)."""
        fn = self.w.func
        pos = [a for a in node.args if a.keyword is None and not a.star]
        kw = [a for a in node.args if a.keyword is not None and a.keyword.value == "inputs"]
        inputs = kw[0].value if kw else pos[1].value if len(pos) > 1 else None
        if isinstance(inputs, (cst.List, cst.Tuple)):
            names = [e.value for e in inputs.elements]
        else:
            names = [inputs] if inputs is not None else []
        for n in names:
            if fn is None or not isinstance(n, cst.Name):
                continue
            for call in self._grad_pending.pop((fn.qual, n.value), []):
                if self._depth.get(id(call)) != self.w.loop_depth or id(call) in self._reported:
                    continue  # made outside the loop the gradient is taken in: not reported
                self._reported.add(id(call))
                recv = call.func.value  # type: ignore[attr-defined]
                taint = self.taint(recv)
                if taint:
                    self.report(call, requires=taint, expr=self.code(call))

    def _backward(self) -> None:
        """``loss.backward()`` breaks the graph (GB0123, CL504): a ``t`` given
        ``requires_grad_()`` here (at this loop depth) that is read after it is an output of
        the graph before the break, which torch refuses (GB8985 at the ``requires_grad_()``)."""
        fn = self.w.func
        if fn is None:
            return
        for (qual, name), calls in list(self._grad_pending.items()):
            if qual != fn.qual:
                continue
            kept = [c for c in calls if self._depth.get(id(c)) == self.w.loop_depth]
            if kept:
                self._after_backward.setdefault((qual, name), []).extend(kept)

    def _read_after_backward(self, name: str) -> None:
        fn = self.w.func
        if fn is None:
            return
        for call in self._after_backward.pop((fn.qual, name), []):
            if id(call) in self._reported:
                continue
            self._reported.add(id(call))
            recv = call.func.value  # type: ignore[attr-defined]
            if _tensor_copy(recv):
                # `w.detach().clone()`: a tensor whatever `w` is (a module's weight too)
                self.report(call, expr=self.code(call))
                continue
            taint = self.taint(recv)
            if taint:
                self.report(call, requires=taint, expr=self.code(call))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._after_backward and isinstance(node.value, cst.Name):
            self._read_after_backward(node.value.value)

    def _derive(self, targets: Sequence[cst.AssignTarget], value: cst.BaseExpression) -> None:
        """Names bound to a tensor computed from one that holds a ``requires_grad_()``
        intermediate (or from one derived from it) are derived from it too; a name bound to
        anything else holds none."""
        fn = self.w.func
        if fn is None:
            return
        calls: list[cst.Call] = []
        for n in _tensor_reads(value):
            key = (fn.qual, n)
            calls += self._holds.get(key, []) + self._derived.get(key, [])
        for t in targets:
            tgt = t.target
            names = (
                [e.value for e in tgt.elements] if isinstance(tgt, (cst.Tuple, cst.List)) else [tgt]
            )
            for e in names:
                if not isinstance(e, cst.Name):
                    continue
                key = (fn.qual, e.value)
                self._holds.pop(key, None)
                if calls:
                    self._derived[key] = list(dict.fromkeys(calls))
                else:
                    self._derived.pop(key, None)

    def _returned_derived(self, value: cst.BaseExpression) -> None:
        """A returned value computed from a ``requires_grad_()`` intermediate leaks it out of
        the graph (GB8985) where autograd records the computation: in training mode (under
        ``no_grad`` the result has no history); the intermediate itself leaks in any mode."""
        fn = self.w.func
        if fn is None:
            return
        for n in _tensor_reads(value):
            key = (fn.qual, n)
            for calls, when in (
                (self._holds.get(key, []), ""),
                (self._derived.get(key, []), "mode==train"),
            ):
                for call in calls:
                    if id(call) in self._reported:
                        continue
                    recv = call.func.value  # type: ignore[attr-defined]
                    # `w.detach().clone()`: a tensor whatever `w` is
                    taint = NO_TAINT if _tensor_copy(recv) else self.taint(recv)
                    if not taint and not _tensor_copy(recv):
                        continue
                    self._reported.add(id(call))
                    if when:
                        self.report(call, requires=taint, expr=self.code(call), when=when)
                    else:
                        self.report(call, requires=taint, expr=self.code(call))

    def visit_Return(self, node: cst.Return) -> None:
        fn = self.w.func
        if fn is None or node.value is None:
            return
        if self._holds or self._derived:
            self._returned_derived(node.value)
        stack: list[cst.CSTNode] = [node.value]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Call):
                self._returned.add(id(n))
            if isinstance(n, cst.Name):
                for call in self._pending.pop((fn.qual, n.value), []):
                    if id(call) in self._reported:
                        continue
                    self._reported.add(id(call))
                    recv = call.func.value  # type: ignore[attr-defined]
                    taint = self.taint(recv)
                    if taint:
                        self.report(call, requires=taint, expr=self.code(call))
            if isinstance(n, (cst.Tuple, cst.List)):
                stack.extend(e.value for e in n.elements)
            elif isinstance(n, cst.Call):
                stack.append(n.func)
            elif isinstance(n, cst.Attribute):
                stack.append(n.value)
