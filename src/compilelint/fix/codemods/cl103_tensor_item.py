"""CL103: drop ``.item()`` where the number only feeds arithmetic with tensors.

- ``x * t.item()``                           -> ``x * t``
- ``x / max(t.item(), 1.0)``                 -> ``x / torch.clamp(t, min=1.0)``
- ``peak = t.item()`` ... ``h / max(peak, 1.0)`` (every use of ``peak`` is such arithmetic)
                                             -> ``peak = t`` ... ``h / torch.clamp(peak, min=1.0)``

- ``spread = t.item()`` ... ``if not torch.compiler.is_compiling(): logger.debug("%f", spread)``
                                             -> the guarded (eager-only) uses read ``spread.item()``

Any other use (a comparison, a shape, ``range()``, a format string, a return value) gets no fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.fix.codemods.base import Codemod, bound_names, is_number
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Replacement, Rewrite
from compilelint.model import Finding

_ARITH = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
)


@dataclass
class _Chain:
    """How a value climbs to a tensor context: the max/min calls on the way (innermost
    first); ``assign`` when it ends as the value of ``name = ...``."""

    minmax: list[cst.Call] = field(default_factory=list)
    assign: cst.Assign | None = None
    top: cst.CSTNode | None = None


class TensorItemDrop(Codemod):
    CODE = "CL103"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, cst.Attribute) and c.func.attr.value == "item"
        ]
        if not calls:
            return NoFix("the `.item()` call was not found in the file")
        call = calls[0]
        chain = self._climb(ctx, call, allow_assign=True)
        if isinstance(chain, NoFix):
            return chain
        repl = {id(call): self._receiver(call)}
        changes: list[tuple[cst.CSTNode, Replacement]] = []
        if chain.assign is None:
            changes.append(self._rewrite(ctx, call, chain, repl))
            return Rewrite(self._title(chain), changes, imports=self._imports(chain))
        # name = <value>: every use of the name must be tensor arithmetic too.
        target = chain.assign.targets[0].target
        assert isinstance(target, cst.Name)
        name = target.value
        fn = ctx.function(call)
        if fn is None:
            return NoFix("the value is not in a function")
        binders = bound_names(fn)
        if len(binders.get(name, [])) != 1:
            return NoFix(f"`{name}` is assigned more than once")
        start = ctx.span(chain.assign)
        chains = [chain]
        changes.append(self._rewrite(ctx, call, chain, repl))
        for use in self._uses(fn, name, target):
            if ctx.span(use)[:2] < start[:2]:
                return NoFix(f"`{name}` is read before it is assigned")
            if _eager_only(ctx, use, fn):
                # the guarded call runs only in eager: it still gets the Python number
                changes.append(
                    (use, cst.Call(func=cst.Attribute(value=use, attr=cst.Name("item"))))
                )
                continue
            used = self._climb(ctx, use, allow_assign=False)
            if isinstance(used, NoFix):
                return NoFix(f"`{name}` is also {used.reason.removeprefix('the value is ')}")
            chains.append(used)
            if used.minmax:
                changes.append(self._rewrite(ctx, use, used, {}))
        imports: tuple[str, ...] = ()
        for c in chains:
            imports = imports or self._imports(c)
        return Rewrite(self._title(*chains), changes, imports=imports)

    # ------------------------------------------------------------------ analysis
    def _climb(self, ctx: FixContext, node: cst.CSTNode, *, allow_assign: bool) -> _Chain | NoFix:
        out = _Chain()
        cur = node
        while True:
            p = ctx.parent(cur)
            if isinstance(p, cst.Arg):
                call = ctx.parent(p)
                if (
                    isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Name)
                    and call.func.value in ("max", "min")
                    and len(call.args) == 2
                    and all(a.keyword is None and not a.star for a in call.args)
                ):
                    other = call.args[1].value if call.args[0] is p else call.args[0].value
                    if is_number(other):
                        out.minmax.append(call)
                        cur = call
                        continue
                where = ctx.code(call).strip()[:40] if call is not None else "a call"
                return NoFix(f"the value is passed to `{where}`")
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, _ARITH):
                other = p.right if p.left is cur else p.left
                if ctx.is_tensor(other):
                    out.top = cur
                    return out
                if is_number(other):
                    cur = p
                    continue
                return NoFix(
                    f"the value is combined with `{ctx.code(other).strip()[:40]}`, "
                    "not known to be a tensor"
                )
            if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
                cur = p
                continue
            if (
                allow_assign
                and isinstance(p, cst.Assign)
                and p.value is cur
                and len(p.targets) == 1
                and isinstance(p.targets[0].target, cst.Name)
            ):
                out.assign = p
                out.top = cur
                return out
            where = ctx.code(p).strip().splitlines()[0][:40] if p is not None else "?"
            return NoFix(f"the value is used in `{where}`, not only in arithmetic with tensors")

    def _uses(self, fn: cst.FunctionDef, name: str, target: cst.Name) -> list[cst.Name]:
        out: list[cst.Name] = []

        class V(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name) -> None:
                if n.value == name and n is not target:
                    out.append(n)

            def visit_Attribute(self, n: cst.Attribute) -> bool:
                n.value.visit(self)
                return False

            def visit_Arg(self, n: cst.Arg) -> bool:
                n.value.visit(self)
                return False

        fn.body.visit(V())
        return out

    # ------------------------------------------------------------------ rewriting
    def _receiver(self, call: cst.Call) -> cst.BaseExpression:
        recv = call.func.value  # type: ignore[attr-defined]
        if call.lpar:
            recv = recv.with_changes(lpar=call.lpar, rpar=call.rpar)
        return recv

    def _rewrite(
        self,
        ctx: FixContext,
        leaf: cst.CSTNode,
        chain: _Chain,
        repl: dict[int, cst.BaseExpression],
    ) -> tuple[cst.CSTNode, cst.CSTNode]:
        """(target, replacement): the outermost max/min of the chain, or the leaf itself."""
        target = chain.minmax[-1] if chain.minmax else leaf
        clamps = {id(c) for c in chain.minmax}
        clamp = cst.parse_expression(ctx.torch("clamp"))

        class T(cst.CSTTransformer):
            def leave_Call(self, o: cst.Call, u: cst.Call) -> cst.BaseExpression:
                if id(o) in repl:
                    return repl[id(o)]
                if id(o) in clamps:
                    v, c = (u.args[0].value, u.args[1].value)
                    if is_number(v):
                        v, c = c, v
                    kw = "min" if o.func.value == "max" else "max"  # type: ignore[attr-defined]
                    eq = cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""),
                    )
                    return u.with_changes(
                        func=clamp,
                        args=[cst.Arg(v), cst.Arg(c, keyword=cst.Name(kw), equal=eq)],
                    )
                return u

        if id(target) in repl:
            return target, repl[id(target)]
        return target, target.visit(T())  # type: ignore[return-value]

    def _imports(self, chain: _Chain) -> tuple[str, ...]:
        return ("torch",) if chain.minmax else ()

    def _title(self, *chains: _Chain) -> str:
        if any(c.minmax for c in chains):
            return "keep the value a tensor: drop `.item()`, `max`/`min` become `torch.clamp`"
        return "keep the value a tensor: drop `.item()`"


def _eager_only(ctx: FixContext, node: cst.CSTNode, fn: cst.FunctionDef) -> bool:
    """Is ``node`` in the body of ``if not torch.compiler.is_compiling():`` (code that
    torch.compile skips) within ``fn``?"""
    cur: cst.CSTNode | None = node
    while cur is not None and cur is not fn:
        p = ctx.parent(cur)
        if isinstance(p, cst.If) and cur is p.body and _is_not_compiling(p.test):
            return True
        cur = p
    return False


def _is_not_compiling(test: cst.BaseExpression) -> bool:
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    return (
        isinstance(call, cst.Call)
        and not call.args
        and isinstance(call.func, (cst.Attribute, cst.Name))
        and (call.func.attr if isinstance(call.func, cst.Attribute) else call.func).value
        in ("is_compiling", "is_dynamo_compiling")
    )
