"""Shared by the side-effect codemods (print, logging, warnings, debugger): put the statement
that makes the call under ``if not torch.compiler.is_compiling():``. Eager runs still make the
call; torch.compile skips it instead of breaking the graph."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class GuardCall(Codemod):
    WHAT: ClassVar[str] = "call"
    # other statements allowed on the same line, guarded together (``import pdb; pdb.set_trace()``)
    ALLOW_IMPORTS: ClassVar[bool] = False

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the reported call was not found in the file")
        call = calls[0]
        stmt = ctx.parent(call)
        if not isinstance(stmt, cst.Expr):
            return NoFix(
                f"the {self.WHAT} is part of a larger expression; only a {self.WHAT} that is a "
                "statement of its own can be guarded"
            )
        line = ctx.parent(stmt)
        if not isinstance(line, cst.SimpleStatementLine):
            return NoFix(f"the {self.WHAT} shares a one-line block (`if x: ...`) with its header")
        others = [s for s in line.body if s is not stmt]
        if others and not (
            self.ALLOW_IMPORTS and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in others)
        ):
            return NoFix(f"other statements share the line of the {self.WHAT}")
        if not isinstance(ctx.parent(line), cst.IndentedBlock):
            return NoFix(f"the {self.WHAT} is not inside a function body")
        test = cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()")
        guard = cst.If(
            test=test,
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        return Rewrite(
            title=f"guard the {self.WHAT} with `if not torch.compiler.is_compiling():`",
            changes=[(line, guard)],
            imports=("torch",),
            mergeable=True,
        )
