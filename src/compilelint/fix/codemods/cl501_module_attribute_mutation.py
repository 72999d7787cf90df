"""CL501: an int counter on ``self`` that traced code only steps becomes a registered buffer.

``self.calls = 0`` in ``__init__`` -> ``self.register_buffer("calls", torch.tensor(0),
persistent=False)``; ``self.calls += 1`` then steps the buffer in place, which torch.compile
traces without guarding on the value. Offered only when every other use of ``self.calls`` in
the class is such a step, arithmetic with a tensor (``x * self.calls``), or a read in
eager-only code (under ``if not torch.compiler.is_compiling():``, e.g. a guarded print), which
then reads ``int(self.calls)``.

A Python list on ``self`` that the function only appends to (a log of per-call values,
``self.history.append(x.mean().tolist())``) is filled only in eager: the append, and the
statements that compute what it appends, go under ``if not torch.compiler.is_compiling():``.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.codemods.cl103_tensor_item import _eager_only
from compilelint.fix.codemods.counters import tensor_reads
from compilelint.fix.codemods.memo import RECOMPILE_FINDING, memo_rewrite
from compilelint.fix.codemods.observe import _statement, guard_group, guard_rewrite
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

_STEP_OPS = (cst.AddAssign, cst.SubtractAssign)


def _appends(f: cst.BaseExpression | None) -> bool:
    return isinstance(f, cst.Attribute) and f.attr.value in ("append", "extend", "insert")


class CounterBuffer(Codemod):
    CODE = "CL501"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        if finding.name == RECOMPILE_FINDING:  # a recompile torch observed in a class with memos
            classes = ctx.nodes_at(finding, cst.ClassDef)
            if not classes:
                return NoFix("the class was not found in the file")
            return memo_rewrite(ctx, classes[0])
        nodes: list[cst.CSTNode] = ctx.nodes_at(finding, (cst.AugAssign, cst.Assign, cst.Call))
        if not nodes:
            return NoFix("the statement was not found in the file")
        node = nodes[0]
        if isinstance(node, cst.AugAssign):
            target = node.target
        elif isinstance(node, cst.Assign):
            target = node.targets[0].target
        else:
            return self._log(ctx, node)
        attr = self_attr(target)
        cls = ctx.enclosing(node, cst.ClassDef)
        if attr is None or cls is None or not isinstance(cls.body, cst.IndentedBlock):
            return NoFix("the counter's class was not found")
        init = next(
            (
                s
                for s in cls.body.body
                if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
            ),
            None,
        )
        if init is None or not isinstance(init.body, cst.IndentedBlock):
            return NoFix("the class has no `__init__` that sets the counter")
        setter = self._setter(init.body, attr)
        if isinstance(setter, NoFix):
            return setter
        line, value = setter
        eager: list[cst.Attribute] = []
        reads: list[cst.Attribute] = []
        steps: list[cst.Assign] = []
        for use in self._uses(cls, attr):
            if ctx.enclosing(use, cst.FunctionDef) is init:
                continue
            fn = ctx.function(use)
            if fn is not None and _eager_only(ctx, use, fn) and not self._written(ctx, use):
                eager.append(use)
                continue
            if self._is_step(ctx, use, attr):
                p = ctx.parent(use)
                assign = ctx.parent(p) if isinstance(p, cst.AssignTarget) else None
                if isinstance(assign, cst.Assign):
                    steps.append(assign)
                continue
            if self._written(ctx, use):
                stmt = ctx.statement(use)
                code = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else attr
                return NoFix(
                    f"`self.{attr}` is also set in `{code[:50]}`, not a step: a buffer "
                    "takes only tensors"
                )
            reads.append(use)
        sides: tuple[list[cst.BaseExpression], list[cst.BaseExpression]] = ([], [])
        joint = tensor_reads(ctx, cls, attr, reads, sides)
        if isinstance(joint, NoFix):
            return joint
        call = cst.parse_statement(
            f'self.register_buffer("{attr}", {ctx.torch("tensor")}({ctx.code(value).strip()}), '
            "persistent=False)\n"
        )
        assert isinstance(call, cst.SimpleStatementLine)
        new = call.with_changes(
            leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace
        )
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = [(line, new)]
        covered = {id(top) for top, _ in joint}
        changes += [
            (u, cst.Call(func=cst.Name("int"), args=[cst.Arg(u)]))
            for u in eager
            if not any(id(x) in covered for x in ctx.ancestors(u))  # lowered: `int()` there
        ]
        for a in steps:  # `self.a = self.a + k` -> `self.a += k`: the buffer steps in place
            if any(id(x) in covered for x in ctx.ancestors(a)):
                continue
            v = a.value
            assert isinstance(v, cst.BinaryOperation)
            op = cst.AddAssign() if isinstance(v.operator, cst.Add) else cst.SubtractAssign()
            changes.append(
                (a, cst.AugAssign(target=a.targets[0].target, operator=op, value=v.right))
            )
        changes += joint
        title = f"make `self.{attr}` a registered buffer stepped in place"
        if reads:
            title = (
                f"make `self.{attr}` a non-persistent buffer stepped in place (`model.{attr}` "
                "is now a 0-d tensor; the state_dict is unchanged), its reads in forward "
                "tensor arithmetic (`torch.clamp`/`torch.where`)"
            )
        # dynamo's guard on the counter fails where forward first reads it: the recompiles
        # this fix removes are recorded at the reads, not at the step
        spans = [ctx.span(u)[0] for u in reads] + [ctx.span(node)[0]]
        rewrite = Rewrite(
            title=title + (" (eager-only reads convert it with `int()`)" if eager else ""),
            changes=changes,
            imports=("torch",),
            reach=(min(spans), max(spans)) if reads else None,
        )
        if sides[0] or sides[1]:
            # a branch on the counter lowered with `torch.where`: both sides are computed;
            # a submodule that only one side calls gets zero gradients where eager gave `None`
            from compilelint.fix.codemods.cl101_tensor_dependent_branch import _or_proposal

            rewrite.title += (
                "; the branches it decides are lowered with `torch.where` (both sides are "
                "computed on every call)"
            )
            return _or_proposal(ctx, rewrite, sides[0], sides[1])  # type: ignore[return-value]
        return rewrite

    def _log(self, ctx: FixContext, call: cst.CSTNode) -> Rewrite | NoFix:
        """``self.history.append(v)`` where the list is only a log: nothing the function
        computes reads it (other methods may, outside the compiled region). The append, and
        what computes ``v`` for it, run only in eager."""
        f = call.func if isinstance(call, cst.Call) else None
        attr = self_attr(f.value) if isinstance(f, cst.Attribute) else None
        if attr is None:
            # torch observed the break where the value is read (`v = t.tolist()`): the fix is
            # the same when that value only ends in a log on `self`
            return self._log_value(ctx, call)
        seed = _statement(ctx, call)
        if seed is None:
            return NoFix("the list is changed outside a statement of a function body")
        group = guard_group(ctx, seed, f"change of `self.{attr}`")
        if isinstance(group, NoFix):
            return NoFix(
                f"`self.{attr}` is a Python list that the traced code also reads: {group.reason}"
                + (
                    "; state kept across calls (a KV cache, a queue) is not a memo that can be "
                    "recomputed: its length is a guard (a recompile per call); by hand, pass "
                    "the cache in and return it (transformers' `past_key_values`), or keep a "
                    "preallocated buffer (`torch.zeros(batch, max_len, dim)`) written at a "
                    "position tensor with `index_copy_` and read under a mask of the filled "
                    "positions, so that its shape never changes"
                    if _appends(f)
                    else ""
                )
            )
        return guard_rewrite(
            ctx,
            group,
            f"`self.{attr}` only logs: fill it only in eager, under "
            "`if not torch.compiler.is_compiling():` (compiled calls no longer append)",
        )

    def _log_value(self, ctx: FixContext, call: cst.CSTNode) -> Rewrite | NoFix:
        seed = _statement(ctx, call)
        if seed is None:
            return NoFix("the value is read outside a statement of a function body")
        group = guard_group(ctx, seed, "value")
        if isinstance(group, NoFix):
            return group
        logs = sorted({a for g in group for a in _logged_attrs(g)})
        if not logs:
            return NoFix("the value is not logged on `self`")
        names = ", ".join(f"`self.{a}`" for a in logs)
        return guard_rewrite(
            ctx,
            group,
            f"the value only feeds the log {names}: read and log it only in eager, under "
            "`if not torch.compiler.is_compiling():`",
        )

    def _written(self, ctx: FixContext, use: cst.Attribute) -> bool:
        p = ctx.parent(use)
        return isinstance(p, (cst.AssignTarget, cst.AugAssign)) or (
            isinstance(p, cst.AnnAssign) and p.target is use
        )

    def _setter(
        self, body: cst.IndentedBlock, attr: str
    ) -> tuple[cst.SimpleStatementLine, cst.BaseExpression] | NoFix:
        """The top-level ``self.<attr> = <int>`` of ``__init__``, after ``super().__init__()``."""
        seen_super = False
        found: tuple[cst.SimpleStatementLine, cst.BaseExpression] | None = None
        for st in body.body:
            code = cst.Module([]).code_for_node(st)
            if "__init__(" in code and not found:
                seen_super = True
            if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
                continue
            small = st.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                tgt, val = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                tgt, val = small.target, small.value
            else:
                continue
            if self_attr(tgt) != attr:
                continue
            if found is not None:
                return NoFix(f"`__init__` sets `self.{attr}` more than once")
            v = val.expression if isinstance(val, cst.UnaryOperation) else val
            if not isinstance(v, cst.Integer):
                return NoFix(f"`self.{attr}` does not start as an int literal")
            if not seen_super:
                return NoFix("the counter is set before `super().__init__()`")
            found = (st, val)
        if found is None:
            return NoFix(f"`__init__` does not set `self.{attr}` in its top-level statements")
        return found

    def _uses(self, cls: cst.ClassDef, attr: str) -> list[cst.Attribute]:
        out: list[cst.Attribute] = []

        class V(cst.CSTVisitor):
            def visit_Attribute(self, n: cst.Attribute) -> None:
                if self_attr(n) == attr:
                    out.append(n)

        cls.body.visit(V())
        return out

    def _is_step(self, ctx: FixContext, use: cst.Attribute, attr: str) -> bool:
        """``self.a += k``, ``self.a -= k`` or ``self.a = self.a +/- k`` with an int ``k``."""
        p = ctx.parent(use)
        if isinstance(p, cst.AugAssign) and p.target is use:
            return isinstance(p.operator, _STEP_OPS) and not isinstance(p.value, cst.Float)
        if isinstance(p, cst.AssignTarget):
            assign = ctx.parent(p)
            return isinstance(assign, cst.Assign) and self._step_value(assign.value, attr)
        if isinstance(p, cst.BinaryOperation):
            assign = ctx.parent(p)
            return (
                isinstance(assign, cst.Assign)
                and assign.value is p
                and len(assign.targets) == 1
                and self_attr(assign.targets[0].target) == attr
                and self._step_value(p, attr)
            )
        return False

    def _step_value(self, v: cst.BaseExpression, attr: str) -> bool:
        return (
            isinstance(v, cst.BinaryOperation)
            and isinstance(v.operator, (cst.Add, cst.Subtract))
            and self_attr(v.left) == attr
            and not isinstance(v.right, cst.Float)
        )


def _logged_attrs(node: cst.CSTNode) -> set[str]:
    """``X`` of every ``self.X.append/extend/insert/appendleft(...)`` under ``node``."""
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in _LOG_METHODS:
                a = self_attr(f.value)
                if a:
                    out.add(a)

    node.visit(V())
    return out


_LOG_METHODS = frozenset({"append", "extend", "insert", "appendleft"})
