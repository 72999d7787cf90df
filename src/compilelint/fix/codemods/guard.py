"""Shared by the side-effect codemods (print, logging, warnings, debugger): the call runs only
in eager; torch.compile skips it instead of breaking the graph.

- a call that is a statement of its own -> the statement under
  ``if not torch.compiler.is_compiling():``, with the statements that compute values only it
  reads (``msg = f"{loss.item():.3f}"`` before ``print(msg)``)
- a call in a statement whose value is discarded and that does nothing but observe
  (``self.verbose and print(x.shape)``, ``[print(k) for k in feats]``) -> that statement under
  the guard
- a call on a line with other statements (``y = f(x); print(y.shape)``) -> one statement a line,
  the call's guarded
- a call inside a larger expression whose value is used (``z = print(x) or x``, a lambda) ->
  ``(print(x) if not torch.compiler.is_compiling() else None)`` in place: these calls return
  ``None``, so both branches give the expression the same value, and the evaluation order is kept
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from compilelint.fix.codemods.base import Codemod, mutating_call
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

_LOG_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "warn_once",
        "warning_once",
        "info_once",
    }
)


# methods that change their receiver besides the in-place ones `mutating_call` knows
_CHANGES = frozenset(
    {
        "clear",
        "add",
        "remove",
        "discard",
        "popitem",
        "setdefault",
        "write",
        "close",
        "reset",
        "step",
        "zero_grad",
        "register_buffer",
        "register_parameter",
    }
)


def observing_call(n: cst.CSTNode) -> bool:
    """``print(...)``, ``logger.info(...)``, ``warnings.warn(...)``, ``breakpoint()``: a call
    that only reports and returns ``None``."""
    if not isinstance(n, cst.Call):
        return False
    f = n.func
    if isinstance(f, cst.Name):
        return f.value in ("print", "breakpoint")
    return isinstance(f, cst.Attribute) and (
        f.attr.value in _LOG_METHODS or f.attr.value == "set_trace"
    )


def only_observes(e: cst.CSTNode) -> bool:
    """Does ``e`` change nothing but through observing calls (no in-place method, mutator,
    walrus, ``yield`` or ``await`` outside their arguments)?"""
    bad: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> bool:
            if observing_call(n):
                return False
            f = n.func
            if (
                mutating_call(n)
                or (isinstance(f, cst.Attribute) and f.attr.value in _CHANGES)
                or self_attr(f) is not None  # a method of the module itself may change its state
            ):
                bad.append(n)
            return True

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            bad.append(n)

        def visit_Yield(self, n: cst.Yield) -> None:
            bad.append(n)

        def visit_Await(self, n: cst.Await) -> None:
            bad.append(n)

    e.visit(V())
    return not bad


class GuardCall(Codemod):
    WHAT: ClassVar[str] = "call"
    # other statements allowed on the same line, guarded together (``import pdb; pdb.set_trace()``)
    ALLOW_IMPORTS: ClassVar[bool] = False

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the reported call was not found in the file")
        call = calls[0]
        test = cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()")
        stmt = ctx.parent(call)
        if not isinstance(stmt, cst.Expr):
            small = next(
                (a for a in ctx.ancestors(call) if isinstance(a, cst.BaseSmallStatement)), None
            )
            if isinstance(small, cst.Expr) and only_observes(small.value):
                stmt = small  # `self.verbose and print(...)`: the whole statement observes
            else:
                if ctx.function(call) is None and ctx.enclosing(call, cst.Lambda) is None:
                    return NoFix(f"the {self.WHAT} is not inside a function body")
                guarded = cst.IfExp(
                    test=test,
                    body=call.with_changes(lpar=[], rpar=[]),
                    orelse=cst.Name("None"),
                    lpar=[cst.LeftParen()],
                    rpar=[cst.RightParen()],
                )
                return Rewrite(
                    title=f"the {self.WHAT} is part of a larger expression: run it only in eager "
                    "(`... if not torch.compiler.is_compiling() else None`, its value either way)",
                    changes=[(call, guarded)],
                    imports=("torch",),
                )
        line = ctx.parent(stmt)
        if isinstance(line, cst.SimpleStatementSuite):
            return self._unfold(ctx, line, stmt, test)
        if not isinstance(line, cst.SimpleStatementLine):
            return NoFix(f"the {self.WHAT} is not a statement of a block")
        if not isinstance(ctx.parent(line), cst.IndentedBlock):
            return NoFix(f"the {self.WHAT} is not inside a function body")
        others = [s for s in line.body if s is not stmt]
        if others and not (
            self.ALLOW_IMPORTS and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in others)
        ):
            return self._split(ctx, line, stmt, test)
        from compilelint.fix.codemods.observe import guard_group, guard_rewrite

        group = guard_group(ctx, line, self.WHAT)
        title = f"guard the {self.WHAT} with `if not torch.compiler.is_compiling():`"
        if not isinstance(group, NoFix) and len(group) > 1:
            # `msg = f"{loss.item():.3f}"` before `print(msg)`: computed only for the report
            return guard_rewrite(ctx, group, title + " (with the values computed only for it)")
        guard = cst.If(
            test=test,
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        return Rewrite(title=title, changes=[(line, guard)], imports=("torch",), mergeable=True)

    def _unfold(
        self,
        ctx: FixContext,
        suite: cst.SimpleStatementSuite,
        stmt: cst.BaseSmallStatement,
        test: cst.BaseExpression,
    ) -> Rewrite | NoFix:
        """``if self.debug: print(x.shape)`` -> the block on its own lines, the call's guarded."""
        if ctx.function(stmt) is None:
            return NoFix(f"the {self.WHAT} is not inside a function body")
        body: list[cst.BaseStatement] = []
        for s in suite.body:
            one = cst.SimpleStatementLine(
                body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
            )
            body.append(cst.If(test=test, body=cst.IndentedBlock(body=[one])) if s is stmt else one)
        return Rewrite(
            title=f"the block on its own lines; guard the {self.WHAT} with "
            "`if not torch.compiler.is_compiling():`",
            changes=[(suite, cst.IndentedBlock(body=body))],
            imports=("torch",),
        )

    def _split(
        self,
        ctx: FixContext,
        line: cst.SimpleStatementLine,
        stmt: cst.BaseSmallStatement,
        test: cst.BaseExpression,
    ) -> Rewrite:
        """``y = f(x); print(y)`` -> one statement a line, the call's under the guard."""
        out: list[cst.BaseStatement] = []
        for s in line.body:
            one = cst.SimpleStatementLine(
                body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
            )
            out.append(cst.If(test=test, body=cst.IndentedBlock(body=[one])) if s is stmt else one)
        last = out[-1]
        if isinstance(last, cst.SimpleStatementLine):
            out[-1] = last.with_changes(trailing_whitespace=line.trailing_whitespace)
        elif isinstance(last, cst.If) and isinstance(last.body, cst.IndentedBlock):
            inner = last.body.body[0]
            assert isinstance(inner, cst.SimpleStatementLine)
            body = last.body.with_changes(
                body=[inner.with_changes(trailing_whitespace=line.trailing_whitespace)]
            )
            out[-1] = last.with_changes(body=body)
        out[0] = out[0].with_changes(leading_lines=line.leading_lines)
        return Rewrite(
            title=f"one statement a line; guard the {self.WHAT} with "
            "`if not torch.compiler.is_compiling():`",
            changes=[(line, cst.FlattenSentinel(out))],
            imports=("torch",),
        )
