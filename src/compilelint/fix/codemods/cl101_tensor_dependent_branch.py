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

from typing import cast

import libcst as cst

from compilelint.fix.codemods import classes, loops, masks, moe
from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    Codemod,
    all_nodes,
    atom,
    bound_names,
    comments_in,
    header_comment,
    is_number,
    last_name,
    name_nodes,
    names_in,
    not_compiling,
    number_expr,
    side_effect,
    suite_statements,
    with_comments,
)
from compilelint.fix.codemods.branchless import AUG_OPS, Lowering, reads_after, reporting_call
from compilelint.fix.codemods.cl104_tensor_dependent_assert import literal_message
from compilelint.fix.codemods.python_sides import (
    arithmetic_reaches_tensor,
    flag_test,
    observed_only,
    python_value_uses,
    returned_to_arithmetic,
)
from compilelint.fix.codemods.raises import RECIPE as RAISE_RECIPE
from compilelint.fix.codemods.raises import control_flow
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr
from compilelint.static.checks.cl111_boolean_mask_indexing import BOOL_METHODS

# (name, new value, original node to ask about) in order
Branch = list[tuple[str, cst.BaseExpression, cst.BaseExpression]]


def _parenthesized_test(ctx: FixContext, finding: Finding) -> list[cst.BaseExpression]:
    """The condition of an ``if (`` / ``while (`` whose test is wrapped over several lines in
    parentheses: the finding's span starts at the opening parenthesis on the statement's line
    (``if (`` then the condition on the next lines), libcst's test span after it; the two end
    together. Only when no node has the finding's span exactly."""
    if ctx.nodes_at(finding, cst.BaseExpression):
        return []
    out: list[cst.BaseExpression] = []
    for node in ctx.on_line(finding.line, cst.CSTNode):  # type: ignore[type-abstract]
        if isinstance(node, (cst.If, cst.While)) and node.test.lpar:
            _, _, end_line, end_col = ctx.span(node.test)
            if (end_line, end_col) == (finding.end_line, finding.end_col):
                out.append(node.test)
    return out


class TensorDependentBranchWhere(Codemod):
    CODE = "CL101"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        for test in [
            *ctx.nodes_at(finding, cst.BaseExpression),
            *_parenthesized_test(ctx, finding),
        ]:
            p = ctx.parent(test)
            if isinstance(p, cst.IfExp) and p.test is test:
                return self._ifexp(ctx, p)
            if isinstance(p, cst.If) and p.test is test:
                dense = moe.dense_dispatch(ctx, p)
                if dense is not None and not isinstance(dense, NoFix):
                    return dense
                got = self._if(ctx, p)
                # an expert loop the dense dispatch declined may still take the loop's masks
                if dense is not None and isinstance(got, NoFix):
                    return got if loops.MASK_RECIPE in got.reason else dense
                return got
            if isinstance(p, cst.While) and p.test is test:
                return self._while(ctx, p)
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

    def _sides_ok(
        self, ctx: FixContext, sides: list[cst.BaseExpression], *, scalars_ok: bool = False
    ) -> NoFix | None:
        """``scalars_ok``: the selected value only enters arithmetic with tensors, so Python
        numbers on both sides may become a 0-dim tensor (``torch.where(c, 2.0, 1.0)``)."""
        for s in sides:
            eff = side_effect(s)
            if eff is not None:
                return NoFix(
                    f"`{ctx.code(eff).strip()}` has a side effect; torch.where computes both sides"
                )
        if not any(ctx.is_tensor(s) for s in sides):
            if scalars_ok and all(_scalar_like(s) for s in sides):
                return None
            return NoFix(
                "no side is a tensor: torch.where would turn Python values into tensors"
                + ("" if not scalars_ok else " (a side is not a number, a name or an attribute)")
            )
        for s in sides:
            if not (ctx.is_tensor(s) or is_number(s) or isinstance(s, cst.Name)):
                return NoFix(f"`{ctx.code(s).strip()}` is not known to be a tensor or a number")
        return None

    # ------------------------------------------------------------------ a if c else b
    def _ifexp(self, ctx: FixContext, node: cst.IfExp) -> Rewrite | Proposal | NoFix:
        bad = self._sides_ok(ctx, [node.body, node.orelse], scalars_ok=_ifexp_tensor_use(ctx, node))
        if bad is not None:
            return bad
        test: cst.BaseExpression = node.test
        if isinstance(test, cst.Comparison) and len(test.comparisons) > 1:
            # a chained comparison calls bool() between its links: joined as tensors
            chained = tensor_test(ctx, test)
            if chained is None:
                return NoFix(
                    f"`{ctx.code(test).strip()}` is a chained comparison whose links are not "
                    "all on tensors (or whose shared operand is not a name or an attribute)"
                )
            test = chained
        new = self._where(ctx, test, node.body, node.orelse).with_changes(
            lpar=node.lpar, rpar=node.rpar
        )
        return _or_proposal(
            ctx,
            Rewrite(
                title="select with `torch.where(cond, a, b)`",
                changes=[(node, new)],
                imports=("torch",),
            ),
            [node.body],
            [node.orelse],
        )

    # ------------------------------------------------------------------ if statements
    def _if(self, ctx: FixContext, node: cst.If) -> Rewrite | Proposal | NoFix:
        if isinstance(ctx.parent(node), cst.If):
            return NoFix(
                "an `elif` of a chain: it is rewritten with the chain's first `if` when that "
                "one is on a tensor (the `elif` then selects on `not cond and cond2`)"
            )
        eff = side_effect(node.test)
        if eff is not None:
            return NoFix(f"`{ctx.code(eff).strip()}` in the condition has a side effect")
        if isinstance(node.orelse, cst.If):
            # an `elif` chain: the `elif` is a nested `if` of the `else`, lowered with it
            chain_test = tensor_test(ctx, node.test)
            if split_flags(ctx, node.test) is not None or chain_test is None:
                return NoFix(
                    "an `elif` chain whose first condition is not one boolean tensor "
                    "(a Python flag in it) is not rewritten"
                )
            return self._lowered(ctx, node, chain_test, node.test)
        loop = loops.exit_of_while(ctx, node)
        if loop is not None:
            return self._bounded_while(ctx, loop)
        masked = masks.guarded_masked_writes(ctx, node)
        if masked is not None:
            return masked
        split = split_flags(ctx, node.test)
        if isinstance(split, NoFix):
            return split
        if split is not None:
            return self._flagged(ctx, node, *split)
        test = tensor_test(ctx, node.test)
        if test is None:
            note = ctx.evidence_note(node.test)
            return NoFix(
                f"`{ctx.code(node.test).strip()}` cannot be written as one boolean tensor "
                "(a chained comparison, or a part that is not known to be a tensor)"
                + (f"; {note}" if note else "")
            )
        return self._if_core(ctx, node, test)

    def _flagged(
        self,
        ctx: FixContext,
        node: cst.If,
        op: cst.BaseBooleanOp,
        flags: cst.BaseExpression,
        tensors: cst.BaseExpression,
    ) -> Rewrite | Proposal | NoFix:
        """``if flag and t: ...`` -> ``if flag:`` + the rewrite of ``if t: ...``; ``if flag or
        t: A [else: B]`` -> ``if flag: A`` + ``else:`` the rewrite of ``if t: A [else: B]``.
        The Python part stays a Python condition (dynamo specializes on it), the tensor part
        becomes a tensor (``logical_not()`` of a Python bool raises)."""
        test = tensor_test(ctx, tensors)
        if test is None:
            return NoFix(f"`{ctx.code(tensors).strip()}` cannot be written as one boolean tensor")
        inner = self._if_core(ctx, node, test, tensors)
        if isinstance(inner, NoFix):
            return inner
        repl = next((new for old, new in inner.changes if old is node), None)
        if repl is None:
            # the tensor part's rewrite replaces more than the `if` (a `break` lowered into its
            # loop's mask): the flag cannot stay a Python `if` around the rewritten statement
            return NoFix(
                f"the rewrite of `{ctx.code(tensors).strip()}` changes the enclosing loop, and "
                f"the Python part `{ctx.code(flags).strip()}` of the condition cannot stay an "
                "`if` around it; by hand: test the flag once before the loop"
            )
        if isinstance(repl, cst.FlattenSentinel):
            stmts = list(repl.nodes)
        else:
            stmts = [repl]
        lead = stmts[0].leading_lines if stmts else ()
        stmts = [stmts[0].with_changes(leading_lines=[]), *stmts[1:]]
        flag = (
            flags.with_changes(lpar=[], rpar=[])
            if isinstance(flags, cst.BooleanOperation)
            else flags
        )
        if isinstance(op, cst.And):
            orelse = None
            if node.orelse is not None:
                orelse = node.orelse.with_changes(leading_lines=[])
            new = cst.If(
                test=flag,
                body=cst.IndentedBlock(body=stmts),  # type: ignore[arg-type]
                orelse=orelse,
                leading_lines=lead,
            )
        else:
            body = node.body
            if isinstance(body, cst.IndentedBlock):
                # the `if` line's comment went with the tensor rewrite (as for `and`): once
                body = body.with_changes(header=cst.TrailingWhitespace())
            new = cst.If(
                test=flag,
                body=body,
                orelse=cst.Else(body=cst.IndentedBlock(body=stmts)),  # type: ignore[arg-type]
                leading_lines=lead,
            )
        # a following `return b` taken in by the tensor rewrite stays for the flag's other side
        title = "keep the Python flag a Python `if` and select on the tensor part: " + inner.title
        if isinstance(inner, Proposal):
            return Proposal(
                title=title, changes=[(node, new)], reason=inner.reason, imports=("torch",)
            )
        return Rewrite(title=title, changes=[(node, new)], imports=("torch",))

    def _if_core(
        self,
        ctx: FixContext,
        node: cst.If,
        test: cst.BaseExpression,
        raw: cst.BaseExpression | None = None,
    ) -> Rewrite | Proposal | NoFix:
        """Rewrite the original ``node`` selecting on ``test`` (one boolean tensor); ``raw``:
        the condition as written that ``test`` stands for (the tensor part of a mixed one)."""
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
        exit_ = self._early_exit(ctx, node, test, raw)
        if exit_ is not None:
            return exit_
        first = self._if_shapes(ctx, node, test, raw)
        if not isinstance(first, NoFix) or (
            node.orelse is not None and not isinstance(node.orelse, cst.Else)
        ):
            return first
        if any(isinstance(b, cst.Raise) for b in all_nodes(node.body)):
            return first
        lowered = self._lowered(ctx, node, test, raw or node.test)
        if isinstance(lowered, NoFix) and not first.reason.startswith(_LOWERING_SAYS_MORE):
            return first
        return lowered

    def _if_shapes(
        self,
        ctx: FixContext,
        node: cst.If,
        test: cst.BaseExpression,
        raw: cst.BaseExpression | None,
    ) -> Rewrite | Proposal | NoFix:
        """The branch shapes with a dedicated rewrite (returns, raises, assignments only)."""
        body = suite_statements(node.body)
        if node.orelse is None and body is not None and any(isinstance(b, cst.Raise) for b in body):
            return self._raise(ctx, node, body, test)
        orelse = suite_statements(node.orelse.body) if node.orelse is not None else []
        reports: list[cst.BaseStatement] = []
        if (
            isinstance(node.body, cst.IndentedBlock)
            and orelse is not None
            and has_report(node.body)
        ):
            split = split_reports(node.body)
            if isinstance(split, NoFix):
                return split
            reports, body = split
        if body is None or orelse is None:
            return NoFix("a branch holds compound statements other than eager-only reports")
        block = ctx.parent(node)
        if not isinstance(block, cst.IndentedBlock):
            return NoFix("the branch is not inside a function body")
        rets = [s for s in body + orelse if isinstance(s, cst.Return)]
        if rets:
            if reports:
                return NoFix("a branch reports and returns")
            return self._returns(ctx, node, block, body, orelse, test)
        return self._assigns(ctx, node, body, orelse, test, reports, raw or node.test)

    # ------------------------------------------------------------------ any body
    def _lowering(self, ctx: FixContext, node: cst.CSTNode, **kw: object) -> Lowering:
        return Lowering(
            ctx,
            node,
            always_apply=lambda t, n, v: always_apply(ctx, t, n, v),
            tensor_test=lambda e: tensor_test(ctx, e),
            tensor_part=lambda e: _tensor_part(ctx, e),
            **kw,  # type: ignore[arg-type]
        )

    def _lowered(
        self, ctx: FixContext, node: cst.If, test: cst.BaseExpression, raw: cst.BaseExpression
    ) -> Rewrite | Proposal | NoFix:
        """A body of any statements, lowered one statement at a time (``branchless``)."""
        if not isinstance(ctx.parent(node), cst.IndentedBlock):
            return NoFix("the branch is not inside a function body")
        low = self._lowering(ctx, node, raw_test=raw)
        cond = ctx.fresh_name("cond")
        body = low.block(_suite(node.body), cst.Name(cond), 0, True)
        if isinstance(body, NoFix):
            return body
        stmts: list[cst.BaseStatement] = [_stmt(cst.Name(cond), test), *body]
        if node.orelse is not None:
            ncond = ctx.fresh_name("cond")
            rest = [node.orelse] if isinstance(node.orelse, cst.If) else _suite(node.orelse.body)
            other = low.block(rest, cst.Name(ncond), 1, False)
            if isinstance(other, NoFix):
                return other
            stmts.append(
                _stmt(
                    cst.Name(ncond),
                    cst.parse_expression(f"{ctx.torch('logical_not')}({cond})"),
                )
            )
            stmts.extend(other)
        if not low.values[0] and not low.values[1]:
            return NoFix("the branch assigns nothing")
        if not any(cond in names_in(st) for st in stmts[1:]):
            stmts = stmts[1:]  # every statement is a repair applied always
        title = (
            "make the branch branchless, statement by statement: each assigned value selects "
            "with `torch.where(cond, new, old)`"
        )
        if low.applied_always and not any("where" in _code_of(st) for st in stmts):
            title = (
                "apply the repair always: it changes nothing when the condition is false "
                "(torch's hint for idempotent repairs such as `nan_to_num` and `clamp`)"
            )
        elif low.applied_always:
            title += (
                "; an idempotent repair (`nan_to_num`/`clamp` under its own check) is applied "
                "always (torch's hint)"
            )
        if any(_eager_guard(st) for st in stmts):
            title += "; reports run only in eager, under `if not torch.compiler.is_compiling():`"
        for attr in low.eager_counters:
            title += (
                f"; `{attr}` (a Python counter the model's outputs never read) counts "
                "eager calls only"
            )
        stmts = with_comments(stmts, node.leading_lines, comments_in(node), header_comment(node))  # type: ignore[arg-type, assignment]
        rewrite = Rewrite(
            title=title, changes=[(node, cst.FlattenSentinel(stmts))], imports=("torch",)
        )
        return _or_proposal(ctx, rewrite, low.values[0], low.values[1])

    # ------------------------------------------------------------------ early exits
    def _early_exit(
        self,
        ctx: FixContext,
        node: cst.If,
        test: cst.BaseExpression,
        raw: cst.BaseExpression | None,
    ) -> Rewrite | Proposal | NoFix | None:
        """``for ...: <body>; if cond: break; <body>`` (or ``return v`` with ``return v``
        after the loop) -> a stop flag: the loop always runs all its iterations and each
        statement selects with ``torch.where(active, new, old)``, so once ``cond`` holds the
        state stays what it was when eager stopped."""
        body = suite_statements(node.body)
        if node.orelse is not None or body is None or len(body) != 1:
            return None
        leave = body[0]
        block = ctx.parent(node)
        loop = ctx.parent(block) if block is not None else None
        if (
            isinstance(leave, (cst.Break, cst.Continue))
            and isinstance(block, cst.IndentedBlock)
            and isinstance(loop, cst.For)
            and (isinstance(leave, cst.Continue) or _has_continue(loop))
        ):
            # a per-iteration mask for `continue`, a cumulative flag for `break` (:mod:`loops`)
            return self._masked_for(ctx, loop)
        if not isinstance(leave, (cst.Break, cst.Return)):
            return None
        if not isinstance(block, cst.IndentedBlock) or not isinstance(loop, (cst.For, cst.While)):
            return (
                NoFix("the exit is not directly in a loop body")
                if isinstance(leave, cst.Break)
                else None
            )
        if isinstance(loop, cst.While):
            return self._bounded_while(ctx, loop)
        outer = ctx.parent(loop)
        follow: cst.BaseExpression | None = None
        moved: cst.BaseStatement | None = None
        if isinstance(leave, cst.Return):
            if leave.value is None or not isinstance(outer, cst.IndentedBlock):
                return None
            i = list(outer.body).index(loop)
            nxt = outer.body[i + 1] if i + 1 < len(outer.body) else None
            if not (
                isinstance(nxt, cst.SimpleStatementLine)
                and len(nxt.body) == 1
                and isinstance(nxt.body[0], cst.Return)
                and nxt.body[0].value is not None
            ):
                return None
            if _code(nxt.body[0].value) == _code(leave.value):
                follow = leave.value
            else:
                # `if t: return v` + `x = v` next in the loop + `return x` after it: the same
                # as `x = v` + `if t: return x` when `t` does not read `x`
                moved = _moved_return(block, node, leave.value, nxt.body[0].value)
                if moved is None:
                    return None
                follow = nxt.body[0].value
        if loop.orelse is not None:
            return NoFix("the loop has an `else`")
        if not isinstance(outer, cst.IndentedBlock):
            return NoFix("the loop is not inside a function body")
        others = [
            n
            for n in all_nodes(loop.body)
            if isinstance(n, (cst.Break, cst.Continue, cst.Return, cst.Yield))
            and n is not leave
            and not any(
                isinstance(a, (cst.FunctionDef, cst.Lambda)) for a in _between(ctx, n, loop)
            )
            and not any(isinstance(a, (cst.For, cst.While)) for a in _between(ctx, n, loop))
        ]
        if others:
            return NoFix(f"the loop has another exit (`{ctx.code(others[0]).strip()}`)")
        assigned = set(bound_names(loop.body))
        after = reads_after(ctx, loop, assigned)
        if follow is not None:
            after |= names_in(follow) & assigned
        targets = set(bound_names(loop.target)) if loop.target is not None else set()
        late = reads_after(ctx, loop, targets)
        if late:
            return NoFix(
                f"the loop variable `{sorted(late)[0]}` is read after the loop: it would hold "
                "the last index, not the one where eager stopped"
            )
        grow = _grows(loop.body, after)
        iters = ctx.code(loop.iter).strip()
        drop_title = (
            "drop the early exit: the loop always runs all its iterations "
            f"(`{iters}`), the cost of the steps eager skipped"
        )
        if grow is not None:
            padded = (
                loops.padded_growth(ctx, loop, node, test)
                if isinstance(leave, cst.Break) and isinstance(loop, cst.For)
                else None
            )
            if padded is not None:
                return padded
            return self._drop_exit(
                ctx,
                node,
                drop_title,
                f"`{grow}` grows the state every iteration, so its shape depends on when the "
                "loop stops: the selection has no branchless form. Dropping the exit keeps the "
                "outputs only if the steps after the exit change nothing (finished rows masked, "
                "e.g. a preallocated buffer written with `torch.where(finished[:, None], old, "
                "new)`), which cannot be shown from the source",
            )
        low = self._lowering(ctx, loop, need_select=after)
        stop, pre, post = ctx.fresh_name("stopped"), ctx.fresh_name("active"), ""
        i = list(block.body).index(node)
        head, tail = list(block.body[:i]), list(block.body[i + 1 :])
        if moved is not None:
            if names_in(follow or node.test) & names_in(node.test):
                # the test reads the value before `x = v`: evaluated first, into a temporary
                first = ctx.fresh_name("stop_now")
                head.append(_stmt(cst.Name(first), test))
                test = cst.Name(first)
            head, tail = [*head, moved], tail[1:]
        new_body: list[cst.BaseStatement] = []
        if head:
            new_body.append(
                _stmt(cst.Name(pre), cst.parse_expression(f"{ctx.torch('logical_not')}({stop})"))
            )
            seg = low.block(head, cst.Name(pre), 0, False)
            if isinstance(seg, NoFix):
                return self._drop_exit(ctx, node, drop_title, _drop_reason(seg))
            new_body.extend(seg)
        head_count = len(low.values[0])
        new_body.append(
            _stmt(
                cst.Name(stop),
                cst.parse_expression(f"{ctx.torch('logical_or')}({stop}, {_code_of(test)})"),
            )
        )
        if tail:
            post = ctx.fresh_name("active")
            new_body.append(
                _stmt(cst.Name(post), cst.parse_expression(f"{ctx.torch('logical_not')}({stop})"))
            )
            seg = low.block(tail, cst.Name(post), 0, False)
            if isinstance(seg, NoFix):
                return self._drop_exit(ctx, node, drop_title, _drop_reason(seg))
            new_body.extend(seg)
        init = cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(stop))],
                    value=cst.parse_expression(
                        f"{ctx.torch('zeros')}((), dtype={ctx.torch('bool')})"
                    ),
                )
            ],
            leading_lines=loop.leading_lines,
        )
        new_loop = loop.with_changes(body=loop.body.with_changes(body=new_body), leading_lines=[])
        rewrite = Rewrite(
            title=drop_title.replace("drop the early exit", "replace the early exit by a stop flag")
            + "; each statement selects with `torch.where(active, new, old)`, so the state "
            "stays what it was when eager stopped",
            changes=[(loop, cst.FlattenSentinel([init, new_loop]))],
            imports=("torch",),
        )
        # what runs before the exit ran in eager on the first iteration at least; a submodule
        # called only after it may never have run (its gradient `None`, here zero)
        return _or_proposal(ctx, rewrite, low.values[0], low.values[0][:head_count])

    def _drop_exit(self, ctx: FixContext, node: cst.If, title: str, reason: str) -> Proposal:
        return Proposal(
            title=title,
            changes=[(node, cst.RemoveFromParent())],  # type: ignore[list-item]
            reason=reason,
            imports=(),
        )

    # ------------------------------------------------------------------ while loops
    def _bounded_while(self, ctx: FixContext, loop: cst.While) -> Rewrite | Proposal | NoFix:
        """Any `while` loop whose Python exits bound a counter (:mod:`loops`)."""
        return loops.bounded_while(
            ctx,
            loop,
            self._lowering,
            lambda e: tensor_test(ctx, e),
            lambda e: _tensor_part(ctx, e),
        )

    def _masked_for(self, ctx: FixContext, loop: cst.For) -> Rewrite | Proposal | NoFix:
        """A `for` loop whose `continue`/`break` read tensors (:mod:`loops`); a loop over
        `unique` values goes to :mod:`classes` (every class with a presence mask)."""
        if isinstance(loop.iter, cst.Call):
            over = classes.unique_iter_loop(ctx, loop.iter, self._lowering)
            if over is not None:
                return over
        return loops.masked_for(
            ctx,
            loop,
            self._lowering,
            lambda e: tensor_test(ctx, e),
            lambda e: _tensor_part(ctx, e),
        )

    def _while(self, ctx: FixContext, node: cst.While) -> Rewrite | Proposal | NoFix:
        first = self._counted_while(ctx, node)
        if not isinstance(first, NoFix):
            return first
        general = self._bounded_while(ctx, node)
        return first if isinstance(general, NoFix) else general

    def _counted_while(self, ctx: FixContext, node: cst.While) -> Rewrite | Proposal | NoFix:
        """``i = 0; while i < N and cond: <body>; i += 1`` (``N`` any expression the loop does
        not change: ``x.size(0)``, ``len(ids)``, ``self.max_iter``) -> ``for i in range(0,
        N):`` + ``active = torch.logical_and(active, cond)`` + the body lowered under
        ``active`` (``branchless``): once ``cond`` is false the state stops changing, as the
        loop's exit did. The loop always runs ``N`` iterations."""
        recipe = (
            "; by hand: give the loop a bound (`for _ in range(max_steps):`), keep an `active` "
            "flag (`active = active & cond`) and select each update with `torch.where(active, "
            "new, old)`, or use `torch._higher_order_ops.while_loop`"
        )
        none = NoFix(
            "a `while` loop on a tensor value without a bounded trip count (`and i < N` on a "
            "counter stepped by 1) has no mechanical rewrite" + recipe
        )
        test = node.test
        if not (
            isinstance(test, cst.BooleanOperation)
            and isinstance(test.operator, cst.And)
            and not test.lpar
        ):
            return none
        parts = _operands(test, cst.And)
        found = [(k, _counter_bound(p)) for k, p in enumerate(parts)]
        found = [(k, cb) for k, cb in found if cb is not None]
        if len(found) != 1:
            return none
        k, (counter, limit) = found[0]  # type: ignore[misc]
        rest_parts = [p for j, p in enumerate(parts) if j != k]
        cond = _join(rest_parts, cst.And)
        if node.orelse is not None:
            return NoFix("the `while` loop has an `else`" + recipe)
        block = ctx.parent(node)
        fn = ctx.function(node)
        if not isinstance(block, cst.IndentedBlock) or fn is None:
            return NoFix("the loop is not inside a function body")
        stmts = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        steps = [
            st
            for st in stmts
            if isinstance(st, cst.SimpleStatementLine)
            and len(st.body) == 1
            and isinstance(st.body[0], cst.AugAssign)
            and isinstance(st.body[0].target, cst.Name)
            and st.body[0].target.value == counter
            and isinstance(st.body[0].operator, cst.AddAssign)
            and isinstance(st.body[0].value, cst.Integer)
            and st.body[0].value.value == "1"
        ]
        if len(steps) != 1 or stmts[-1] is not steps[0]:
            return NoFix(
                f"`{counter}` is not stepped by `{counter} += 1` once, at the end of the body"
                + recipe
            )
        rest = stmts[:-1]
        i = list(block.body).index(node)
        prev: cst.BaseStatement | None = None
        for j in range(i - 1, -1, -1):
            # the counter's start: the nearest earlier statement of the block that binds it,
            # read by none of the statements between it and the loop
            if counter in bound_names(block.body[j]):
                prev = block.body[j]
                if any(counter in names_in(b) for b in block.body[j + 1 : i]):
                    prev = None
                break
        start = _int_assign(prev, counter)
        if start is None:
            return NoFix(
                f"`{counter}` is not set to an int literal before the loop (and read nowhere "
                "between)" + recipe
            )
        if len(bound_names(fn).get(counter, [])) != 2:
            return NoFix(f"`{counter}` is assigned elsewhere too" + recipe)
        assigned = set(bound_names(node.body))
        if isinstance(limit, cst.CSTNode):
            if side_effect(limit) is not None or names_in(limit) & assigned:
                return NoFix("the loop's bound changes in the loop" + recipe)
        if reads_after(ctx, node, {counter}):
            return NoFix(
                f"`{counter}` is read after the loop: it would hold the bound, not the index "
                "where eager stopped" + recipe
            )
        tcond = tensor_test(ctx, cond)
        if tcond is None or side_effect(cond) is not None:
            return NoFix(
                f"`{ctx.code(cond).strip()}` cannot be written as one boolean tensor" + recipe
            )
        after = reads_after(ctx, node, assigned)
        low = self._lowering(ctx, node, need_select=after)
        act = ctx.fresh_name("active")
        body = low.block(rest, cst.Name(act), 0, False)
        if isinstance(body, NoFix):
            return NoFix(body.reason + recipe)
        if not low.values[0]:
            return NoFix("the loop body assigns nothing")
        step = _stmt(
            cst.Name(act),
            cst.parse_expression(f"{ctx.torch('logical_and')}({act}, {_code_of(tcond)})"),
        )
        bound = limit if isinstance(limit, cst.CSTNode) else cst.Integer(str(limit))
        rng = f"range({_code_of(bound)})" if start == 0 else f"range({start}, {_code_of(bound)})"
        init = cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(act))],
                    value=cst.parse_expression(
                        f"{ctx.torch('ones')}((), dtype={ctx.torch('bool')})"
                    ),
                )
            ],
            leading_lines=node.leading_lines,
        )
        used = any(counter in names_in(st) for st in rest) or counter in names_in(cond)
        loop = cst.For(
            target=cst.Name(counter if used else "_"),
            iter=cst.parse_expression(rng),
            body=cst.IndentedBlock(body=[step, *body]),
        )
        return Rewrite(
            title=f"run the loop over `{rng}` (all its iterations: the cost of the ones eager "
            "skipped) with a flag `active` that turns false with the condition; each update "
            "selects with `torch.where(active, new, old)`, so the state stops changing where "
            "the loop stopped",
            changes=[
                (node, cst.FlattenSentinel([init, loop])),
                (prev, cst.RemoveFromParent()),  # type: ignore[list-item]
            ],
            imports=("torch",),
        )

    def _raise(
        self,
        ctx: FixContext,
        node: cst.If,
        body: list[cst.BaseSmallStatement],
        test: cst.BaseExpression,
    ) -> Rewrite | Proposal | NoFix:
        """``if cond: raise E("msg")`` -> ``torch._assert_async(torch.logical_not(cond), "msg")``."""
        for r in body:
            if isinstance(r, cst.Raise) and r.exc is not None:
                flow = control_flow(ctx.module, r.exc)
                if flow is not None:
                    return NoFix(f"{flow}; {RAISE_RECIPE}")
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
        inner = inner.with_changes(args=[cst.Arg(test.with_changes(lpar=[], rpar=[]))])
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
        test: cst.BaseExpression,
    ) -> Rewrite | Proposal | NoFix:
        changes: list[tuple[cst.CSTNode, object]] = []
        if len(body) != 1 or not isinstance(body[0], cst.Return):
            return NoFix("a branch does more than return a value")
        follow: cst.SimpleStatementLine | None = None
        if node.orelse is None and body[0].value is None:  # type: ignore[union-attr]
            # `if self.initted: return` before an initialisation (vector-quantize's kmeans
            # init): no value to select; the rest of the function is code, chosen by the test
            return NoFix(
                "the `if` returns nothing: it skips the rest of the function (code, not a "
                "value); running that code on every call would redo its writes and draws. By "
                "hand: keep the flag a Python bool on the module (`self.initted = True` after "
                "the first call), which dynamo specializes on (one recompile), or run the "
                "initialisation once before compiling"
            )
        if node.orelse is None:
            i = list(block.body).index(node)
            tail = _pure_tail(ctx, node, list(block.body[i + 1 :]), body[0])
            if isinstance(tail, NoFix):
                return tail
            follow = tail
            orelse = list(tail.body)
        if len(orelse) != 1 or not isinstance(orelse[0], cst.Return):
            return NoFix("a branch does more than return a value")
        a, b = body[0].value, orelse[0].value  # type: ignore[union-attr]
        if a is None or b is None:
            return NoFix("a branch returns nothing")
        bad = self._sides_ok(ctx, [a, b], scalars_ok=returned_to_arithmetic(ctx, node))
        if bad is not None:
            return bad
        ret = cst.SimpleStatementLine(body=[cst.Return(value=self._where(ctx, test, a, b))])
        comments = comments_in(node) + (comments_in(follow) if follow is not None else [])
        i = list(block.body).index(node)
        between: list[cst.BaseExpression] = []
        if follow is not None and block.body[i + 1] is not follow:
            # statements that only bind names run first; the selection returns at their end
            j = list(block.body).index(follow)
            between = [
                cast(cst.Assign, small).value
                for st in block.body[i + 1 : j]
                for small in cast(cst.SimpleStatementLine, st).body
            ]
            stmts = with_comments([ret], follow.leading_lines, comments, header_comment(node))
            changes.append((node, cst.RemoveFromParent()))
            changes.append((follow, cst.FlattenSentinel(stmts)))
        else:
            stmts = with_comments([ret], node.leading_lines, comments, header_comment(node))
            changes.append((node, cst.FlattenSentinel(stmts)))
            if follow is not None:
                changes.append((follow, cst.RemoveFromParent()))
        return _or_proposal(
            ctx,
            Rewrite(
                title="return `torch.where(cond, a, b)`",
                changes=changes,  # type: ignore[arg-type]
                imports=("torch",),
            ),
            [a],
            [b, *between],
        )

    def _branch(
        self,
        stmts: list[cst.BaseSmallStatement],
        targets: dict[str, cst.BaseExpression] | None = None,
    ) -> Branch | NoFix:
        """Each assignment of a branch as (key, new value, node to ask about). ``targets``
        given: ``a, b = x, y`` (a tuple of the same length), ``a = b = v``, and targets other
        than names (``self.stats["k"] = v``, ``self.last = v``: keyed by their code, the node
        recorded in ``targets``) are split into one assignment per target."""
        out: Branch = []
        for s in stmts:
            if isinstance(s, cst.Pass):
                continue
            if isinstance(s, cst.Assign):
                pairs = _assign_pairs(s) if targets is not None else None
                if pairs is None:
                    if len(s.targets) != 1 or not isinstance(s.targets[0].target, cst.Name):
                        return NoFix("a branch assigns something other than one plain name")
                    pairs = [(s.targets[0].target, s.value)]
                if isinstance(pairs, NoFix):
                    return pairs
                for t, v in pairs:
                    out.append((_target_key(t, targets), v, v))
            elif isinstance(s, cst.AugAssign) and (
                isinstance(s.target, cst.Name) or (targets is not None and _plain_target(s.target))
            ):
                op = AUG_OPS.get(type(s.operator))
                if op is None:
                    return NoFix("a branch uses a bitwise augmented assignment")
                key = _target_key(s.target, targets)
                val = cst.BinaryOperation(left=s.target, operator=op(), right=atom(s.value))
                # `x += v` on a tensor is a tensor whatever `v` is
                out.append((key, val, s.target))
            else:
                return NoFix("a branch does more than assign values to names")
        return out

    def _assigns(
        self,
        ctx: FixContext,
        node: cst.If,
        body: list[cst.BaseSmallStatement],
        orelse: list[cst.BaseSmallStatement],
        test: cst.BaseExpression,
        reports: list[cst.BaseStatement] | None = None,
        raw: cst.BaseExpression | None = None,
    ) -> Rewrite | Proposal | NoFix:
        reports = reports or []
        raw = raw if raw is not None else node.test
        hoisted: list[cst.SimpleStatementLine] = []
        if not orelse:
            hoisted, body = self._hoist(ctx, node, body)
        targets: dict[str, cst.BaseExpression] = {}
        tb = self._branch(body, targets)
        if isinstance(tb, NoFix):
            return tb
        fb = self._branch(orelse, targets)
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
                    if n in seen or _reads_any(v, seen, targets):
                        return NoFix(
                            "a branch reads a value it assigned; the sides depend on order"
                        )
                    seen.add(n)
        bad_target = _target_reads(tb + fb, targets)
        if bad_target is not None:
            return bad_target
        one_sided = [n for n in names if n not in tmap or n not in fmap]
        fn = ctx.function(node)
        kept = [n for n in one_sided if n in targets]
        fresh = [
            n
            for n in kept
            if not any(n == k and o is targets[n] for k, _, o in tb + fb)
            and not _set_before(ctx, node, targets[n])
        ]
        if fresh:
            return NoFix(
                f"`{fresh[0]}` is assigned in one branch only: it may hold no value before the "
                "`if` (a missing key or attribute)"
            )
        one_sided = [n for n in one_sided if n not in targets]
        if one_sided and not self._bound_before(ctx, fn, node, one_sided):
            return NoFix("a name assigned in one branch has no value before the `if`")
        if reports and not tb and not fb:
            return NoFix("the branch assigns nothing")
        sides = [o for _, _, o in tb + fb]
        plain = [n for n in names if n not in targets]
        scalars_ok = not targets and _tensor_uses_only(ctx, node, plain)
        bad = self._sides_ok(ctx, sides, scalars_ok=scalars_ok)
        propose = ""
        if bad is not None:
            if not (bad.reason.startswith("no side is a tensor") and raw is node.test):
                return bad
            logged = observed_only(ctx, node, bad.reason) if not reports else bad
            if isinstance(logged, Rewrite):
                # Python values read only by a log line: the branch runs only in eager
                return logged
            attrs = [
                self_attr(targets[n]) or ""
                for n in names
                if n in targets and self_attr(targets[n]) is not None
            ]
            uses = python_value_uses(ctx, node, plain, attrs)
            if len(attrs) != len(names) - len(plain) or isinstance(uses, NoFix):
                return logged if not reports else bad
            if self._sides_ok(ctx, sides, scalars_ok=True) is not None:
                return logged if not reports else bad
            propose = uses
        stmts: list[cst.BaseStatement] = []
        always = [always_apply(ctx, raw, n, o) for n, _, o in tb] if not fb and tb else [False]
        title = "select with `torch.where(cond, a, b)` instead of branching"
        if all(always):
            title = (
                "apply the repair always: it changes nothing when the condition is false "
                "(torch's hint for idempotent repairs such as `nan_to_num` and `clamp`)"
            )
        cond: cst.BaseExpression = test
        if not all(always) and (len(names) if fb else len(tb)) > 1:  # one shared condition
            tmp = ctx.fresh_name("cond")
            stmts.append(
                cst.SimpleStatementLine(
                    body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(tmp))], value=test)]
                )
            )
            cond = cst.Name(tmp)

        def read(n: str) -> cst.BaseExpression:
            return targets[n] if n in targets else cst.Name(n)

        if fb:
            for n in names:
                a = tmap.get(n, read(n))
                b = fmap.get(n, read(n))
                stmts.append(self._assign(ctx, n, cond, a, b, targets.get(n)))
        elif all(always):
            for n, v, _ in tb:
                stmts.append(_stmt(read(n), v))
        else:
            for n, v, _ in tb:
                stmts.append(self._assign(ctx, n, cond, v, read(n), targets.get(n)))
        stmts = [*hoisted, *stmts]
        if hoisted:
            title += "; Python values the branch only uses itself are computed always"
        if reports:
            # the side effects run only in eager, on the original condition, before the values
            # change (a report reads no value the branch assigned before it)
            inner = cst.If(
                test=raw.with_changes(lpar=[], rpar=[])
                if isinstance(raw, cst.BooleanOperation)
                else raw,
                body=cst.IndentedBlock(body=[_unguard(r) for r in reports]),
            )
            guard = cst.If(
                test=cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()"),
                body=cst.IndentedBlock(body=[inner]),
            )
            stmts.insert(0, guard)
            title += (
                "; the reports run only in eager, under `if not torch.compiler.is_compiling():`"
            )
        stmts = with_comments(stmts, node.leading_lines, comments_in(node), header_comment(node))  # type: ignore[arg-type, assignment]
        rewrite = Rewrite(
            title=title,
            changes=[(node, cst.FlattenSentinel(stmts))],
            imports=("torch",),
        )
        if propose:
            return Proposal(
                title="pick a 0-dim tensor with `torch.where(cond, a, b)` instead of a Python "
                "value",
                changes=rewrite.changes,
                reason=propose,
                imports=rewrite.imports,
            )
        if all(always):
            return rewrite  # one side only, applied always: nothing is computed in addition
        return _or_proposal(ctx, rewrite, [v for _, v, _ in tb], [v for _, v, _ in fb])

    def _hoist(
        self, ctx: FixContext, node: cst.If, body: list[cst.BaseSmallStatement]
    ) -> tuple[list[cst.SimpleStatementLine], list[cst.BaseSmallStatement]]:
        """``clamp_value = torch.finfo(h.dtype).max - 1000`` in a branch that only uses it
        itself (T5's fp16 overflow clamp): a Python value without side effects, bound nowhere
        else in the function, read only in the branch. It is computed always, before the
        selections, instead of being selected."""
        fn = ctx.function(node)
        if fn is None:
            return [], body
        bound = bound_names(fn)
        out: list[cst.SimpleStatementLine] = []
        rest: list[cst.BaseSmallStatement] = []
        assigned: set[str] = set()
        for s in body:
            if (
                isinstance(s, cst.Assign)
                and len(s.targets) == 1
                and isinstance(s.targets[0].target, cst.Name)
                and not ctx.is_tensor(s.value)
                and side_effect(s.value) is None
                and not (names_in(s.value) & assigned)
            ):
                n = s.targets[0].target.value
                reads = name_nodes(fn.body, n, reads_only=True)
                if len(bound.get(n, [])) == 1 and all(
                    any(a is node for a in ctx.ancestors(r)) for r in reads
                ):
                    out.append(
                        cst.SimpleStatementLine(
                            body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
                        )
                    )
                    continue
            rest.append(s)
            assigned |= set(bound_names(s))
        return out, rest

    def _assign(
        self,
        ctx: FixContext,
        name: str,
        cond: cst.BaseExpression,
        a: cst.BaseExpression,
        b: cst.BaseExpression,
        target: cst.BaseExpression | None = None,
    ) -> cst.SimpleStatementLine:
        return cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(target or cst.Name(name))],  # type: ignore[arg-type]
                    value=self._where(ctx, cond, a, b),
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


# reasons of the dedicated shapes about the body's form: the statement-by-statement lowering
# names the statement that stops it instead
_LOWERING_SAYS_MORE = (
    "a branch",
    "a name assigned in one branch",
    "a report",
    "`self.",
    "the branch assigns nothing",
)


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=list(suite.body))]
    return list(suite.body)  # type: ignore[arg-type, attr-defined]


def _stmt(target: cst.BaseExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    # `target` is a name or an attribute read as an assignment's target
    return cst.SimpleStatementLine(
        body=[
            cst.Assign(
                targets=[cst.AssignTarget(cast(cst.BaseAssignTargetExpression, target))],
                value=value,
            )
        ]
    )


def _code_of(e: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(e).strip()


def _eager_guard(st: cst.CSTNode) -> bool:
    return isinstance(st, cst.If) and not_compiling(st.test)


def _between(ctx: FixContext, n: cst.CSTNode, top: cst.CSTNode) -> list[cst.CSTNode]:
    out = []
    for a in ctx.ancestors(n):
        if a is top:
            break
        out.append(a)
    return out


def _grows(body: cst.CSTNode, names: set[str]) -> str | None:
    """``ids = torch.cat([ids, nxt], 1)`` / ``outs.append(x)`` on state read after the loop:
    the code of the statement, else None."""
    for n in all_nodes(body):
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call):
            f = n.value.func
            fname = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
            tgt = {t.target.value for t in n.targets if isinstance(t.target, cst.Name)}
            if fname in ("cat", "concat", "concatenate", "stack", "hstack", "vstack") and (
                names_in(n.value) & tgt
            ):
                return _code_of(n)
        if (
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in ("append", "extend", "insert")
        ):
            return _code_of(n)
    del names
    return None


def _drop_reason(nofix: NoFix) -> str:
    return (
        f"{nofix.reason}. Dropping the exit keeps the outputs only if the steps after it change "
        "nothing (finished rows masked), which cannot be shown from the source"
    )


# ---------------------------------------------------------------------------- branch targets


def _plain_target(t: cst.BaseExpression) -> bool:
    """``self.x``, ``obj.a.b``, ``d["k"]``, ``self.stats["k"]``, ``buf[0]``: an attribute or a
    subscript by a constant, on a chain of names and attributes (evaluating it has no effect)."""
    if isinstance(t, cst.Attribute):
        return isinstance(t.value, cst.Name) or _plain_target(t.value)
    if isinstance(t, cst.Subscript):
        if len(t.slice) != 1 or not isinstance(t.slice[0].slice, cst.Index):
            return False
        key = t.slice[0].slice.value
        if not (isinstance(key, (cst.SimpleString, cst.Integer)) or is_number(key)):
            return False
        return isinstance(t.value, cst.Name) or _plain_target(t.value)
    return False


def _assign_pairs(
    s: cst.Assign,
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | NoFix | None:
    """(target, value) per target of ``s`` when it is more than one plain name: ``a, b = x,
    y``, ``a = b = v``, ``self.x = v``, ``d["k"] = v``; None for one plain name."""
    if len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name):
        return None
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    for at in s.targets:
        t = at.target
        if isinstance(t, (cst.Tuple, cst.List)):
            els = t.elements
            v = s.value
            if len(s.targets) != 1 or not isinstance(v, (cst.Tuple, cst.List)):
                return NoFix("a branch unpacks a value that is not a tuple literal")
            vals = v.elements
            if len(vals) != len(els) or any(
                isinstance(e, (cst.StarredElement)) for e in [*els, *vals]
            ):
                return NoFix("a branch unpacks a tuple of another length or a starred one")
            names = {e.value.value for e in els if isinstance(e.value, cst.Name)}
            for e, ve in zip(els, vals):
                if not (isinstance(e.value, cst.Name) or _plain_target(e.value)):
                    return NoFix("a branch unpacks into a target other than a name or attribute")
                if names_in(ve.value) & names:
                    return NoFix("a branch swaps values (`a, b = b, a`)")
                pairs.append((e.value, ve.value))
        elif isinstance(t, cst.Name) or _plain_target(t):
            pairs.append((t, s.value))
        else:
            return NoFix("a branch assigns something other than a name, an attribute or a key")
    return pairs


def _set_before(ctx: FixContext, node: cst.If, target: cst.BaseExpression) -> bool:
    """Does ``target`` (``self.x``, ``d["k"]``, ``self.stats["k"]``) hold a value before the
    ``if``: assigned by a statement of the same function on an earlier line, by ``__init__``
    (a ``self`` attribute, or a key of the dict literal ``__init__`` assigns to it), or a key
    of a dict literal bound to the name earlier in the function?"""
    fn = ctx.function(node)
    if fn is None:
        return False
    line = ctx.span(node)[0]
    key = _code(target)
    klass = ctx.enclosing(fn, cst.ClassDef)
    init = next(
        (
            s
            for s in (klass.body.body if klass is not None else ())  # type: ignore[union-attr]
            if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
        ),
        None,
    )
    base = target.value if isinstance(target, (cst.Subscript, cst.Attribute)) else None
    sub_key = (
        target.slice[0].slice.value  # type: ignore[attr-defined]
        if isinstance(target, cst.Subscript)
        else None
    )
    if init is not None and isinstance(target, cst.Attribute) and key.startswith("self."):
        # `self.register_buffer("ema", ...)` / `register_parameter` in `__init__` sets `self.ema`
        for n in all_nodes(init):
            if (
                isinstance(n, cst.Call)
                and isinstance(n.func, cst.Attribute)
                and _code(n.func.value) == "self"
                and n.func.attr.value in ("register_buffer", "register_parameter")
                and n.args
                and isinstance(n.args[0].value, cst.SimpleString)
                and n.args[0].value.evaluated_value == target.attr.value
            ):
                return True
    for scope, before in ((fn, True), (init, False)):
        if scope is None or (scope is fn and before is False):
            continue
        for n in all_nodes(scope):
            if not isinstance(n, cst.Assign) or (before and ctx.span(n)[0] >= line):
                continue
            if before is False and not (base is not None and _code(base).startswith("self")):
                continue
            for t in n.targets:
                code = _code(t.target)
                if code == key and (before or key.startswith("self.")):
                    return True
                if (
                    base is not None
                    and sub_key is not None
                    and code == _code(base)
                    and isinstance(n.value, cst.Dict)
                    and any(
                        isinstance(el, cst.DictElement) and _code(el.key) == _code(sub_key)
                        for el in n.value.elements
                    )
                ):
                    return True
    return False


def _target_key(t: cst.BaseExpression, targets: dict[str, cst.BaseExpression] | None) -> str:
    if isinstance(t, cst.Name):
        return t.value
    key = _code(t)
    if targets is not None:
        targets.setdefault(key, t)
    return key


def _reads_any(
    v: cst.BaseExpression, keys: set[str], targets: dict[str, cst.BaseExpression]
) -> bool:
    """Does ``v`` read one of ``keys`` (names, or the code of attribute/key targets)?"""
    if names_in(v) & keys:
        return True
    text = _code(v)
    return any(k in targets and k in text for k in keys)


def _target_reads(br: Branch, targets: dict[str, cst.BaseExpression]) -> NoFix | None:
    """An attribute or key target whose object a branch also rebinds (``d = {}``; then
    ``d["k"] = v``) is not split: the selections would write to another object."""
    names = {k for k, _, _ in br if k not in targets}
    for key, t in targets.items():
        if names_in(t) & names:
            return NoFix(f"a branch rebinds a name `{key}` is read through")
    return None


# ---------------------------------------------------------------------------- Python sides


_NUMBER_BUILTINS = frozenset({"min", "max", "abs", "len", "float", "int", "round"})


def _scalar_like(e: cst.BaseExpression) -> bool:
    """A side that may be a Python number: a numeric expression, a name or ``self.attr``."""
    if number_expr(e):
        return True
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
        return _scalar_like(e.left) and _scalar_like(e.right)
    if (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Name)
        and e.func.value in _NUMBER_BUILTINS
        and e.args
        and all(not a.star and not a.keyword for a in e.args)
    ):
        # ``min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1)``: Python numbers in, one out
        return e.func.value == "len" or all(_scalar_like(a.value) for a in e.args)
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _tensor_operand(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """``e`` is one operand of arithmetic whose other operand is a tensor (``logits / e``):
    a 0-dim tensor there computes what the Python number did."""
    return arithmetic_reaches_tensor(ctx, e)


def _ifexp_tensor_use(ctx: FixContext, node: cst.IfExp) -> bool:
    """``logits / (a if c else b)``, or ``t = a if c else b`` whose every read is such."""
    if _tensor_operand(ctx, node):
        return True
    stmt = ctx.parent(node)
    if (
        isinstance(stmt, cst.Assign)
        and stmt.value is node
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0].target, cst.Name)
    ):
        return _tensor_uses_only(ctx, stmt, [stmt.targets[0].target.value])
    return False


def _tensor_uses_only(ctx: FixContext, node: cst.CSTNode, names: list[str]) -> bool:
    """Every read of ``names`` in the function outside ``node`` (the statement that selects
    them) is an operand of arithmetic with a tensor, and every other binding of them is an
    assignment of a Python number-like value before ``node`` (outside any loop)."""
    fn = ctx.function(node)
    if fn is None or any(
        isinstance(a, (cst.For, cst.While)) and a is not node
        for a in ctx.ancestors(node)
        if any(b is fn for b in ctx.ancestors(a))
    ):
        return False
    line = ctx.span(node)[0]
    bound = bound_names(fn)
    for n in names:
        for b in bound.get(n, []):
            if b is node or any(a is node for a in ctx.ancestors(b)):
                continue
            a = ctx.parent(b) if isinstance(b, cst.AssignTarget) else None
            if not (
                isinstance(a, cst.Assign)
                and len(a.targets) == 1
                and ctx.span(a)[0] < line
                and _scalar_like(a.value)
                and side_effect(a.value) is None
            ):
                return False
        reads = name_nodes(fn.body, n, reads_only=True)
        if not reads:
            return False
        for r in reads:
            if any(a is node for a in ctx.ancestors(r)):
                continue
            if not (_tensor_operand(ctx, r) or flag_test(ctx, r)):
                return False
    return True


def _counter_bound(e: cst.BaseExpression) -> tuple[str, int | cst.BaseExpression] | None:
    """``i < N``: (``i``, N) with N an int (a literal) or the bound's expression."""
    if (
        isinstance(e, cst.Comparison)
        and len(e.comparisons) == 1
        and isinstance(e.left, cst.Name)
        and isinstance(e.comparisons[0].operator, cst.LessThan)
    ):
        c = e.comparisons[0].comparator
        if isinstance(c, cst.Integer):
            return e.left.value, int(c.value, 0)
        if e.left.value not in names_in(c):
            return e.left.value, c
    return None


def _int_assign(st: cst.CSTNode | None, name: str) -> int | None:
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    a = st.body[0]
    if (
        isinstance(a, cst.Assign)
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
        and a.targets[0].target.value == name
        and isinstance(a.value, cst.Integer)
    ):
        return int(a.value.value, 0)
    return None


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
        and not_compiling(body.body[0].test)
        and isinstance(body.body[0].body, cst.IndentedBlock)
    ):
        body = body.with_changes(body=body.body[0].body.body)
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        if not all(reporting_call(st) for st in line.body):
            return None
    return body


# ---------------------------------------------------------------------------- conditions
def _tensor_part(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """Whether a condition operand reads a tensor (by the static stage's tensor inference)."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        return _tensor_part(ctx, e.expression)
    if isinstance(e, cst.BooleanOperation):
        return _tensor_part(ctx, e.left) or _tensor_part(ctx, e.right)
    if isinstance(e, cst.Comparison):
        return (
            ctx.is_tensor(e)
            or ctx.is_tensor(e.left)
            or any(ctx.is_tensor(c.comparator) for c in e.comparisons)
        )
    return ctx.is_tensor(e)


def _call(ctx: FixContext, fn: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(
        func=cst.parse_expression(ctx.torch(fn)),
        args=[
            cst.Arg(a.with_changes(lpar=[], rpar=[]) if isinstance(a, cst.BooleanOperation) else a)
            for a in args
        ],
    )


def tensor_test(ctx: FixContext, e: cst.BaseExpression) -> cst.BaseExpression | None:
    """``e`` (a condition on tensors) as one boolean tensor, or None: ``not t`` ->
    ``torch.logical_not(t)``, ``a and b`` -> ``torch.logical_and(a, b)``, ``or`` likewise; a
    tensor that is not known to hold booleans is compared with zero (``t != 0``), as ``bool()``
    does. Python ``and``/``or``/``not`` would call ``bool()`` on the tensor: a break."""
    if isinstance(e, cst.BooleanOperation):
        left, right = tensor_test(ctx, e.left), tensor_test(ctx, e.right)
        if left is None or right is None:
            return None
        fn = "logical_and" if isinstance(e.operator, cst.And) else "logical_or"
        return _call(ctx, fn, left, right)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        inner = tensor_test(ctx, e.expression)
        return None if inner is None else _call(ctx, "logical_not", inner)
    if not _tensor_part(ctx, e):
        return None
    if isinstance(e, cst.Comparison):
        if any(
            isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in e.comparisons
        ):
            return None
        if len(e.comparisons) != 1:
            return _chained_test(ctx, e)
        return e
    f = e.func if isinstance(e, cst.Call) else None
    if last_name(f) in BOOL_METHODS:
        return e
    return cst.Comparison(
        left=atom(e),
        comparisons=[cst.ComparisonTarget(operator=cst.NotEqual(), comparator=cst.Integer("0"))],
    )


def _chained_test(ctx: FixContext, e: cst.Comparison) -> cst.BaseExpression | None:
    """``lo <= sigma <= hi`` (Python evaluates ``bool(lo <= sigma)`` between the two links: a
    break) as ``torch.logical_and(lo <= sigma, sigma <= hi)``: every link reads a tensor, and
    an operand shared by two links is a name or an attribute (read twice, the same value)."""
    operands = [e.left, *(c.comparator for c in e.comparisons)]
    for mid in operands[1:-1]:
        m: cst.BaseExpression = mid
        while isinstance(m, cst.Attribute):
            m = m.value
        if not isinstance(m, cst.Name):
            return None
    links: list[cst.BaseExpression] = []
    for i, c in enumerate(e.comparisons):
        left, right = operands[i], operands[i + 1]
        if not (ctx.is_tensor(left) or ctx.is_tensor(right)):
            return None
        links.append(
            cst.Comparison(
                left=left.with_changes(lpar=[], rpar=[]) if i else left,
                comparisons=[c.with_changes(comparator=right)],
            )
        )
    out = links[0]
    for link in links[1:]:
        out = _call(ctx, "logical_and", out, link)
    return out


def _operands(e: cst.BaseExpression, op: type) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, op) and not e.lpar:
        return [*_operands(e.left, op), *_operands(e.right, op)]
    return [e]


def _join(parts: list[cst.BaseExpression], op: type) -> cst.BaseExpression:
    out = parts[0]
    for p in parts[1:]:
        out = cst.BooleanOperation(left=out, operator=op(), right=p)
    return out


def split_flags(
    ctx: FixContext, test: cst.BaseExpression
) -> tuple[cst.BaseBooleanOp, cst.BaseExpression, cst.BaseExpression] | NoFix | None:
    """``flag and t`` (an ``and``/``or`` chain mixing Python values and tensors): (operator,
    the Python part, the tensor part); None when the chain does not mix them."""
    if not isinstance(test, cst.BooleanOperation) or test.lpar:
        return None
    op = type(test.operator)
    parts = _operands(test, op)
    tensors = [p for p in parts if _tensor_part(ctx, p)]
    flags = [p for p in parts if not _tensor_part(ctx, p)]
    if not tensors or not flags:
        return None
    return op(), _join(flags, op), _join(tensors, op)


# ---------------------------------------------------------------------------- reports
def _is_report_stmt(st: cst.BaseStatement) -> bool:
    if isinstance(st, cst.SimpleStatementLine):
        return all(reporting_call(s) for s in st.body)
    return (
        isinstance(st, cst.If)
        and st.orelse is None
        and not_compiling(st.test)
        and isinstance(st.body, cst.IndentedBlock)
        and all(_is_report_stmt(s) for s in st.body.body)
    )


def has_report(body: cst.IndentedBlock) -> bool:
    return any(_is_report_stmt(st) for st in body.body)


def split_reports(
    body: cst.IndentedBlock,
) -> tuple[list[cst.BaseStatement], list[cst.BaseSmallStatement]] | NoFix:
    """A branch body of reports (print/logging/warnings, possibly already eager-only) and
    simple statements: (the reports, the other statements). A report must not read a name
    assigned before it in the body (it moves before the assignments)."""
    reports: list[cst.BaseStatement] = []
    rest: list[cst.BaseSmallStatement] = []
    assigned: set[str] = set()
    for st in body.body:
        if _is_report_stmt(st):
            if names_in(st) & assigned:
                return NoFix("a report in the branch reads a value the branch assigned before it")
            reports.append(st)
            continue
        if not isinstance(st, cst.SimpleStatementLine):
            return NoFix("a branch holds compound statements other than eager-only reports")
        for s in st.body:
            if reporting_call(s):
                return NoFix("a report shares its line with other statements")
            rest.append(s)
            assigned |= set(bound_names(s))
    return reports, rest


def _unguard(st: cst.BaseStatement) -> cst.BaseStatement:
    """A report as it runs under the new guard (an inner eager-only guard is dropped)."""
    if isinstance(st, cst.If) and isinstance(st.body, cst.IndentedBlock):
        inner = list(st.body.body)
        if len(inner) == 1:
            return inner[0].with_changes(leading_lines=st.leading_lines)
        return st
    return st


# ---------------------------------------------------------------------------- always apply
def _code(e: cst.CSTNode) -> str:
    return "".join(cst.Module([]).code_for_node(e).split())


def _clamp_bounds(
    ctx: FixContext, v: cst.BaseExpression, name: str
) -> tuple[str | None, str | None] | None:
    """(min, max) source of a clamp of ``name`` (``x.clamp(a, b)``, ``torch.clamp(x, a, b)``,
    ``x.clamp_min(a)``, ``x.clamp_max(b)``, ``clip`` alike), or None."""
    if not isinstance(v, cst.Call) or not isinstance(v.func, cst.Attribute):
        return None
    meth = v.func.attr.value
    args = list(v.args)
    recv = v.func.value
    if _code(recv) == ctx.torch():
        if not args or args[0].keyword or _code(args[0].value) != name:
            return None
        args = args[1:]
    elif not (isinstance(recv, cst.Name) and recv.value == name):
        return None
    if any(a.star for a in args):
        return None
    pos = [_code(a.value) for a in args if a.keyword is None]
    kw = {a.keyword.value: _code(a.value) for a in args if a.keyword is not None}
    if meth in ("clamp", "clip"):
        lo = kw.get("min", pos[0] if pos else None)
        hi = kw.get("max", pos[1] if len(pos) > 1 else None)
        return (None if lo == "None" else lo), (None if hi == "None" else hi)
    if meth == "clamp_min" and len(pos) == 1:
        return pos[0], None
    if meth == "clamp_max" and len(pos) == 1:
        return None, pos[0]
    return None


def _any_beyond(test: cst.BaseExpression, x: str, th: str) -> tuple[str | None, str | None] | None:
    """``(x > c).any()`` / ``torch.any(x > c)`` (``>=`` too): (None, c); ``(x < c).any()``:
    (c, None); ``(x.abs() > c).any()``: (-c, c). The clamp bounds that change nothing when
    the check is false."""
    inner: cst.BaseExpression | None = None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute):
        if test.func.attr.value == "any" and not test.args:
            if _code(test.func.value) == th:
                return None
            inner = test.func.value
        if _code(test.func.value) == th and test.func.attr.value == "any" and len(test.args) == 1:
            inner = test.args[0].value
    if not (isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1):
        return None
    op = inner.comparisons[0].operator
    left, c = _code(inner.left), _code(inner.comparisons[0].comparator)
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        if left == x:
            return None, c
        if left in (f"{x}.abs()", f"{th}.abs({x})"):
            return f"-{c}" if not c.startswith("-") else None, c
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)) and left == x:
        return c, None
    return None


def always_apply(
    ctx: FixContext, test: cst.BaseExpression, name: str, value: cst.BaseExpression
) -> bool:
    """``if <cond>: name = <repair of name>`` where the repair changes nothing when ``cond``
    is false, so it can be applied always: ``nan_to_num`` under a check that some value is not
    finite, ``clamp`` to ``[-c, c]`` (or one side) under a check that a value lies outside."""
    tc = _code(test)
    th = ctx.torch()
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value == "nan_to_num":
            recv = value.func.value
            first = value.args[0].value if value.args and not value.args[0].keyword else None
            is_x = (isinstance(recv, cst.Name) and recv.value == name) or (
                _code(recv) == th and isinstance(first, cst.Name) and first.value == name
            )
            x = name
            nonfinite = {
                f"not{th}.isfinite({x}).all()",
                f"not{x}.isfinite().all()",
                f"not{th}.all({th}.isfinite({x}))",
                f"(~{th}.isfinite({x})).any()",
                f"{th}.logical_not({th}.isfinite({x})).any()",
                f"(~{x}.isfinite()).any()",
                f"~{th}.isfinite({x}).all()",
            }
            return is_x and tc in nonfinite
    bounds = _clamp_bounds(ctx, value, name)
    if bounds is not None:
        beyond = _any_beyond(test, name, th)
        if beyond is not None:
            return bounds == beyond
    if bounds is None or not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    lo, hi = bounds
    op = test.comparisons[0].operator
    left, c = _code(test.left), _code(test.comparisons[0].comparator)
    x = name
    greater = isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual))
    less = isinstance(op, (cst.LessThan, cst.LessThanEqual))
    absmax = {
        f"{x}.abs().max()",
        f"{x}.abs().amax()",
        f"{th}.max({x}.abs())",
        f"{th}.amax({x}.abs())",
        f"{th}.abs({x}).max()",
    }
    if greater and left in absmax:
        return hi == c and lo in (f"-{c}", f"-({c})")
    if greater and left in {f"{x}.max()", f"{x}.amax()", f"{th}.max({x})", f"{th}.amax({x})"}:
        return hi == c and lo is None
    if less and left in {f"{x}.min()", f"{x}.amin()", f"{th}.min({x})", f"{th}.amin({x})"}:
        return lo == c and hi is None
    return False


def _called_modules(e: cst.CSTNode) -> set[str]:
    """``self.X`` of the calls ``self.X(...)``, ``self.X[i](...)``, ``self.X.f(...)`` in ``e``
    (submodules and methods that may use parameters)."""
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            f: cst.BaseExpression = n.func
            while isinstance(f, (cst.Attribute, cst.Subscript)):
                if (attr := self_attr(f)) is not None:
                    out.add(attr)
                    return
                f = f.value

    e.visit(V())
    return out


def _or_proposal(
    ctx: FixContext,
    rewrite: Rewrite,
    taken: list[cst.BaseExpression],
    other: list[cst.BaseExpression],
) -> Rewrite | Proposal:
    """The rewrite, or a proposal when one side calls a submodule the other does not.

    ``torch.where`` computes both sides, so that submodule's parameters receive zero
    gradients on the calls where eager never ran it (their ``.grad`` stays ``None``). That is
    not the same training step: optimizers skip parameters without a gradient, but apply weight
    decay and momentum to a zero one (AdamW, SGD with momentum), so parameters eager leaves
    alone would change. Computing both sides is also the cost of the rewrite."""
    methods: dict[str, cst.FunctionDef] = {}
    cls = next(
        (c for c in ctx.ancestors(rewrite.changes[0][0]) if isinstance(c, cst.ClassDef)), None
    )
    if cls is not None and isinstance(cls.body, cst.IndentedBlock):
        methods = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}

    def modules(e: cst.CSTNode, depth: int = 0) -> set[str]:
        # a method of the class counts through the submodules it calls (`self._pad(x)` uses
        # none); anything else called on `self` is taken for a submodule
        out: set[str] = set()
        for name in _called_modules(e):
            if name in methods:
                if depth < 3:
                    out |= modules(methods[name].body, depth + 1)
            else:
                out.add(name)
        return out

    a = set().union(*(modules(e) for e in taken)) if taken else set()
    b = set().union(*(modules(e) for e in other)) if other else set()
    only = sorted(a ^ b)
    if not only:
        return rewrite
    return Proposal(
        title=rewrite.title,
        changes=rewrite.changes,
        reason=f"both sides are computed, so `self.{only[0]}` runs on every call: its "
        "parameters receive zero gradients where eager gives them none (`None`), and an "
        "optimizer with weight decay or momentum (AdamW, SGD with momentum) then updates "
        "parameters eager would leave alone; apply it if that module is frozen or the model "
        "only runs inference (`torch.cond` computes one side but, on torch 2.13, also gives "
        "the other side's parameters zero gradients, in eager and compiled)",
        imports=rewrite.imports,
    )


def _pure_tail(
    ctx: FixContext,
    node: cst.If,
    rest: list[cst.BaseStatement],
    ret: cst.BaseSmallStatement,
) -> cst.SimpleStatementLine | NoFix:
    """The ``return b`` that ends the statements after ``if c: return a`` (no ``else``), when
    the statements before it only bind names (``applied = self.f(x)``, no side effect, no
    write through an attribute or an index, no other exit) that neither ``c`` nor ``a`` reads:
    running them also where eager returned early changes no value, so ``return
    torch.where(c, a, b)`` at their end returns what eager did (kornia's
    ``transform_class``: ``if sum(to_apply) == len(to_apply): return self.f(...)`` before the
    general ``torch.where`` of both)."""
    missing = NoFix("the `if` returns but no `else`/next statement returns the other value")
    if not rest:
        return missing
    last = rest[-1]
    if not (
        isinstance(last, cst.SimpleStatementLine)
        and len(last.body) == 1
        and isinstance(last.body[0], cst.Return)
    ):
        return missing
    read = names_in(node.test) | names_in(ret)
    for st in rest[:-1]:
        if not isinstance(st, cst.SimpleStatementLine):
            return NoFix(
                "the `if` returns early and the statements after it, before the other "
                f"`return`, are not only assignments (`{ctx.code(st).strip().splitlines()[0]}`)"
            )
        for small in st.body:
            if not isinstance(small, cst.Assign) or not all(
                isinstance(t.target, cst.Name) for t in small.targets
            ):
                return NoFix(
                    "the `if` returns early and a statement after it, before the other "
                    f"`return`, does more than bind a name (`{ctx.code(small).strip()}`)"
                )
            eff = side_effect(small.value)
            if eff is not None:
                return NoFix(
                    f"after the early return, `{ctx.code(eff).strip()}` has a side effect: "
                    "torch.where would run it where eager returned first"
                )
            hit = {cast(cst.Name, t.target).value for t in small.targets} & read
            if hit:
                return NoFix(
                    f"`{sorted(hit)[0]}` is rebound after the early return and read by its "
                    "condition or value"
                )
    return last


def _has_continue(loop: cst.For) -> bool:
    """``loop`` holds a ``continue`` of its own (not of a nested loop or function)."""
    return any(isinstance(n, cst.Continue) for n in loops.exits_of(loop.body, loop))


def _moved_return(
    block: cst.CSTNode, node: cst.If, value: cst.BaseExpression, after: cst.BaseExpression
) -> cst.BaseStatement | None:
    """The statement ``x = <value>`` right after ``node`` in ``block`` when ``after`` (what the
    function returns after the loop) is ``x``."""
    if not isinstance(block, cst.IndentedBlock) or not isinstance(after, cst.Name):
        return None
    stmts = list(block.body)
    k = stmts.index(node)
    nxt = stmts[k + 1] if k + 1 < len(stmts) else None
    if not (isinstance(nxt, cst.SimpleStatementLine) and len(nxt.body) == 1):
        return None
    a = nxt.body[0]
    if (
        isinstance(a, cst.Assign)
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
        and a.targets[0].target.value == after.value
        and _code(a.value) == _code(value)
        and side_effect(a.value) is None
    ):
        return nxt
    return None
