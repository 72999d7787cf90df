"""CL101: a branch on a tensor value that only selects values becomes ``torch.where``.

- ``a if cond else b``                                  -> ``torch.where(cond, a, b)``
- ``if cond: return a`` + ``else: return b`` (or a following ``return b``)
                                                       -> ``return torch.where(cond, a, b)``
- ``if cond: x = a [else: x = b]`` (assignments only)   -> ``x = torch.where(cond, a, x | b)``
- ``if cond: warnings.warn(...)`` (a body that only prints, logs or warns, no ``else``)
                                                       -> the whole ``if`` under
                                                          ``if not torch.compiler.is_compiling():``
- ``if cond: raise ValueError("msg")`` (a body that only raises, no ``else``)
                                                       -> ``torch._assert_async(
                                                              torch.logical_not(cond), "msg")``
                                                          (an in-graph check: it raises a
                                                          RuntimeError, asynchronously on GPU)

Both sides are computed, so the rewrite is unsafe: it is offered only when no side has a
visible side effect and at least one side is a tensor.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    Codemod,
    atom,
    bound_names,
    comments_in,
    header_comment,
    is_number,
    names_in,
    side_effect,
    suite_statements,
    with_comments,
)
from compilelint.fix.codemods.cl104_tensor_dependent_assert import literal_message
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

_AUG: dict[type, type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}

# (name, new value, original node to ask about) in order
Branch = list[tuple[str, cst.BaseExpression, cst.BaseExpression]]


class TensorDependentBranchWhere(Codemod):
    CODE = "CL101"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        for test in ctx.nodes_at(finding, cst.BaseExpression):
            p = ctx.parent(test)
            if isinstance(p, cst.IfExp) and p.test is test:
                return self._ifexp(ctx, p)
            if isinstance(p, cst.If) and p.test is test:
                return self._if(ctx, p)
            if isinstance(p, cst.While) and p.test is test:
                return NoFix(
                    "a `while` loop on a tensor value has no mechanical rewrite "
                    "(use a fixed trip count or torch's control-flow operators)"
                )
            if isinstance(p, cst.CompIf):
                return NoFix("a comprehension filter on tensor values keeps a data-dependent count")
        return NoFix("the branch was not found in the file")

    # ------------------------------------------------------------------ helpers
    def _where(
        self,
        ctx: FixContext,
        cond: cst.BaseExpression,
        a: cst.BaseExpression,
        b: cst.BaseExpression,
    ) -> cst.Call:
        return cst.Call(
            func=cst.parse_expression(ctx.torch("where")),
            args=[cst.Arg(cond), cst.Arg(a), cst.Arg(b)],
        )

    def _sides_ok(self, ctx: FixContext, sides: list[cst.BaseExpression]) -> NoFix | None:
        for s in sides:
            eff = side_effect(s)
            if eff is not None:
                return NoFix(
                    f"`{ctx.code(eff).strip()}` has a side effect; torch.where computes both sides"
                )
        if not any(ctx.is_tensor(s) for s in sides):
            return NoFix("no side is a tensor: torch.where would turn Python values into tensors")
        for s in sides:
            if not (ctx.is_tensor(s) or is_number(s) or isinstance(s, cst.Name)):
                return NoFix(f"`{ctx.code(s).strip()}` is not known to be a tensor or a number")
        return None

    # ------------------------------------------------------------------ a if c else b
    def _ifexp(self, ctx: FixContext, node: cst.IfExp) -> Rewrite | NoFix:
        bad = self._sides_ok(ctx, [node.body, node.orelse])
        if bad is not None:
            return bad
        new = self._where(ctx, node.test, node.body, node.orelse).with_changes(
            lpar=node.lpar, rpar=node.rpar
        )
        return Rewrite(
            title="select with `torch.where(cond, a, b)`",
            changes=[(node, new)],
            imports=("torch",),
        )

    # ------------------------------------------------------------------ if statements
    def _if(self, ctx: FixContext, node: cst.If) -> Rewrite | NoFix:
        if isinstance(node.orelse, cst.If) or isinstance(ctx.parent(node), cst.If):
            return NoFix("`elif` chains are not rewritten")
        eager = eager_only_body(node)
        if eager is not None:
            if not isinstance(ctx.parent(node), cst.IndentedBlock):
                return NoFix("the branch is not inside a function body")
            inner = node.with_changes(body=eager, leading_lines=[])
            guard = cst.If(
                test=cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()"),
                body=cst.IndentedBlock(body=[inner]),
                leading_lines=node.leading_lines,
            )
            return Rewrite(
                title="the branch only reports (print/logging/warnings): run it only in eager, "
                "under `if not torch.compiler.is_compiling():`",
                changes=[(node, guard)],
                imports=("torch",),
            )
        body = suite_statements(node.body)
        if node.orelse is None and body is not None and any(isinstance(b, cst.Raise) for b in body):
            return self._raise(ctx, node, body)
        orelse = suite_statements(node.orelse.body) if node.orelse is not None else []
        if body is None or orelse is None:
            return NoFix("a branch holds compound statements")
        block = ctx.parent(node)
        if not isinstance(block, cst.IndentedBlock):
            return NoFix("the branch is not inside a function body")
        rets = [s for s in body + orelse if isinstance(s, cst.Return)]
        if rets:
            return self._returns(ctx, node, block, body, orelse)
        return self._assigns(ctx, node, body, orelse)

    def _raise(
        self, ctx: FixContext, node: cst.If, body: list[cst.BaseSmallStatement]
    ) -> Rewrite | NoFix:
        """``if cond: raise E("msg")`` -> ``torch._assert_async(torch.logical_not(cond), "msg")``."""
        if len(body) != 1 or not isinstance(body[0], cst.Raise) or body[0].cause is not None:
            return NoFix("a branch does more than raise an exception")
        if not isinstance(ctx.parent(node), cst.IndentedBlock):
            return NoFix("the branch is not inside a function body")
        eff = side_effect(node.test)
        if eff is not None:
            return NoFix(f"`{ctx.code(eff).strip()}` has a side effect")
        exc = body[0].exc
        msg: cst.BaseExpression | None = None
        if isinstance(exc, cst.Call):
            if len(exc.args) > 1 or any(a.keyword or a.star for a in exc.args):
                return NoFix("the exception is built from more than a message")
            if exc.args:
                arg = exc.args[0].value
                msg = (
                    arg.with_changes(lpar=[], rpar=[])
                    if isinstance(arg, cst.SimpleString)
                    else literal_message(ctx, arg)
                )
                if msg is None:
                    return NoFix("the exception's message is not a string literal")
            name = exc.func
        elif isinstance(exc, (cst.Name, cst.Attribute)):
            name = exc
        else:
            return NoFix("the branch re-raises an exception")
        if msg is None:
            msg = cst.SimpleString(repr(ctx.code(name).strip()))
        check = cst.parse_statement(
            f"{ctx.torch('_assert_async')}({ctx.torch('logical_not')}(__c__), __m__)\n"
        )
        assert isinstance(check, cst.SimpleStatementLine)
        expr = check.body[0]
        assert isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)
        call = expr.value
        inner = call.args[0].value
        assert isinstance(inner, cst.Call)
        inner = inner.with_changes(args=[cst.Arg(node.test.with_changes(lpar=[], rpar=[]))])
        call = call.with_changes(
            args=[call.args[0].with_changes(value=inner), call.args[1].with_changes(value=msg)]
        )
        stmt = check.with_changes(body=[expr.with_changes(value=call)])
        stmts = with_comments([stmt], node.leading_lines, comments_in(node), header_comment(node))
        return Rewrite(
            title="check in the graph with `torch._assert_async(torch.logical_not(cond), msg)` "
            "(raises RuntimeError; asynchronously on GPU)",
            changes=[(node, cst.FlattenSentinel(stmts))],
            imports=("torch",),
        )

    def _returns(
        self,
        ctx: FixContext,
        node: cst.If,
        block: cst.IndentedBlock,
        body: list[cst.BaseSmallStatement],
        orelse: list[cst.BaseSmallStatement],
    ) -> Rewrite | NoFix:
        changes: list[tuple[cst.CSTNode, object]] = []
        if len(body) != 1 or not isinstance(body[0], cst.Return):
            return NoFix("a branch does more than return a value")
        follow: cst.SimpleStatementLine | None = None
        if node.orelse is None:
            i = list(block.body).index(node)
            nxt = block.body[i + 1] if i + 1 < len(block.body) else None
            if not (
                isinstance(nxt, cst.SimpleStatementLine)
                and len(nxt.body) == 1
                and isinstance(nxt.body[0], cst.Return)
            ):
                return NoFix(
                    "the `if` returns but no `else`/next statement returns the other value"
                )
            follow = nxt
            orelse = list(nxt.body)
        if len(orelse) != 1 or not isinstance(orelse[0], cst.Return):
            return NoFix("a branch does more than return a value")
        a, b = body[0].value, orelse[0].value  # type: ignore[union-attr]
        if a is None or b is None:
            return NoFix("a branch returns nothing")
        bad = self._sides_ok(ctx, [a, b])
        if bad is not None:
            return bad
        ret = cst.SimpleStatementLine(body=[cst.Return(value=self._where(ctx, node.test, a, b))])
        comments = comments_in(node) + (comments_in(follow) if follow is not None else [])
        stmts = with_comments([ret], node.leading_lines, comments, header_comment(node))
        changes.append((node, cst.FlattenSentinel(stmts)))
        if follow is not None:
            changes.append((follow, cst.RemoveFromParent()))
        return Rewrite(
            title="return `torch.where(cond, a, b)`",
            changes=changes,  # type: ignore[arg-type]
            imports=("torch",),
        )

    def _branch(self, stmts: list[cst.BaseSmallStatement]) -> Branch | NoFix:
        out: Branch = []
        for s in stmts:
            if isinstance(s, cst.Pass):
                continue
            if isinstance(s, cst.Assign):
                if len(s.targets) != 1 or not isinstance(s.targets[0].target, cst.Name):
                    return NoFix("a branch assigns something other than one plain name")
                out.append((s.targets[0].target.value, s.value, s.value))
            elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name):
                op = _AUG.get(type(s.operator))
                if op is None:
                    return NoFix("a branch uses a bitwise augmented assignment")
                val = cst.BinaryOperation(
                    left=cst.Name(s.target.value), operator=op(), right=atom(s.value)
                )
                # `x += v` on a tensor is a tensor whatever `v` is
                out.append((s.target.value, val, s.target))
            else:
                return NoFix("a branch does more than assign values to names")
        return out

    def _assigns(
        self,
        ctx: FixContext,
        node: cst.If,
        body: list[cst.BaseSmallStatement],
        orelse: list[cst.BaseSmallStatement],
    ) -> Rewrite | NoFix:
        tb = self._branch(body)
        if isinstance(tb, NoFix):
            return tb
        fb = self._branch(orelse)
        if isinstance(fb, NoFix):
            return fb
        if not tb and not fb:
            return NoFix("the branch assigns nothing")
        names: list[str] = []
        for n, _, _ in tb + fb:
            if n not in names:
                names.append(n)
        tmap = {n: v for n, v, _ in tb}
        fmap = {n: v for n, v, _ in fb}
        if fb:
            # With an else branch, each side is computed from the values before the `if`: a
            # branch must not read a name it assigns earlier (or assign a name twice).
            for br in (tb, fb):
                seen: set[str] = set()
                for n, v, _ in br:
                    if n in seen or (names_in(v) & seen):
                        return NoFix(
                            "a branch reads a value it assigned; the sides depend on order"
                        )
                    seen.add(n)
        one_sided = [n for n in names if n not in tmap or n not in fmap]
        fn = ctx.function(node)
        if one_sided and not self._bound_before(ctx, fn, node, one_sided):
            return NoFix("a name assigned in one branch has no value before the `if`")
        sides = [o for _, _, o in tb + fb]
        bad = self._sides_ok(ctx, sides)
        if bad is not None:
            return bad
        stmts: list[cst.SimpleStatementLine] = []
        cond: cst.BaseExpression = node.test
        if (len(names) if fb else len(tb)) > 1:  # several selections share one condition
            tmp = ctx.fresh_name("cond")
            stmts.append(
                cst.SimpleStatementLine(
                    body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(tmp))], value=node.test)]
                )
            )
            cond = cst.Name(tmp)
        if fb:
            for n in names:
                a = tmap.get(n, cst.Name(n))
                b = fmap.get(n, cst.Name(n))
                stmts.append(self._assign(ctx, n, cond, a, b))
        else:
            for n, v, _ in tb:
                stmts.append(self._assign(ctx, n, cond, v, cst.Name(n)))
        stmts = with_comments(stmts, node.leading_lines, comments_in(node), header_comment(node))
        return Rewrite(
            title="select with `torch.where(cond, a, b)` instead of branching",
            changes=[(node, cst.FlattenSentinel(stmts))],
            imports=("torch",),
        )

    def _assign(
        self,
        ctx: FixContext,
        name: str,
        cond: cst.BaseExpression,
        a: cst.BaseExpression,
        b: cst.BaseExpression,
    ) -> cst.SimpleStatementLine:
        return cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(name))], value=self._where(ctx, cond, a, b)
                )
            ]
        )

    def _bound_before(
        self, ctx: FixContext, fn: cst.FunctionDef | None, node: cst.If, names: list[str]
    ) -> bool:
        if fn is None:
            return False
        line = ctx.span(node)[0]
        ps = fn.params
        params = {p.name.value for p in [*ps.params, *ps.kwonly_params, *ps.posonly_params]}
        for star in (ps.star_arg, ps.star_kwarg):
            if isinstance(star, cst.Param):
                params.add(star.name.value)
        bound = bound_names(fn.body)
        for n in names:
            if n in params:
                continue
            if not any(ctx.span(b)[0] < line for b in bound.get(n, [])):
                return False
        return True


_REPORTERS = {"print", "warn", "debug", "info", "warning", "error", "exception", "critical", "log"}


def _reporting_call(st: cst.CSTNode) -> bool:
    if not (isinstance(st, cst.Expr) and isinstance(st.value, cst.Call)):
        return False
    f = st.value.func
    name = (
        f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else ""
    )
    return name in _REPORTERS


def _not_compiling(test: cst.BaseExpression) -> bool:
    return (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Call)
        and isinstance(test.expression.func, cst.Attribute)
        and test.expression.func.attr.value == "is_compiling"
    )


def eager_only_body(node: cst.If) -> cst.BaseSuite | None:
    """The body to keep when ``node`` (no ``else``) only reports: print, logging or warnings
    calls, possibly already under ``if not torch.compiler.is_compiling():`` (unwrapped)."""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    body = node.body
    if (
        len(body.body) == 1
        and isinstance(body.body[0], cst.If)
        and body.body[0].orelse is None
        and _not_compiling(body.body[0].test)
        and isinstance(body.body[0].body, cst.IndentedBlock)
    ):
        body = body.with_changes(body=body.body[0].body.body)
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        if not all(_reporting_call(st) for st in line.body):
            return None
    return body
