"""CL205: a standard-library call (timers, ``random``, frame inspection, hashing, files) or a
``with`` block dynamo cannot trace, in code that only observes, runs only in eager.

- ``t0 = time.perf_counter()`` ... ``self.elapsed = time.perf_counter() - t0``
                                  -> both under ``if not torch.compiler.is_compiling():``
                                     (with every statement that reads what they bind)
- ``with open(path, "a") as fh: fh.write(...)`` (a block that only records)
                                  -> the block under the guard
- ``with self._lock: x = self.lin(x)`` (the block computes what the model returns)
                                  -> ``with (self._lock if not torch.compiler.is_compiling()
                                     else contextlib.nullcontext()):``: the lock is taken in
                                     eager; a compiled graph runs on one thread's call anyway

A value that flows on into the model's computation gets no fix: it must be computed outside
the compiled region and passed in (a ``torch.compiler.disable``d helper would still break the
graph, at its call).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.codemods.observe import _statement, guard_group, guard_rewrite
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class SkippedCallEagerOnly(Codemod):
    CODE = "CL205"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        nodes = ctx.nodes_at(finding, cst.CSTNode)
        if not nodes:
            return NoFix("the reported call was not found in the file")
        node = nodes[0]
        if isinstance(node, cst.With):
            return self._with(ctx, node, None)
        for a in ctx.ancestors(node):
            if isinstance(a, cst.WithItem):
                w = ctx.parent(a)
                if isinstance(w, cst.With):
                    return self._with(ctx, w, a)
            if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                break
        seed = _statement(ctx, node)
        if seed is None:
            return NoFix("the call is not in a function body")
        group = guard_group(ctx, seed, "call")
        if isinstance(group, NoFix):
            return NoFix(
                f"{group.reason}; a value that flows on must be computed outside the compiled "
                "region and passed in (a `torch.compiler.disable`d helper still breaks the graph)"
            )
        return guard_rewrite(
            ctx,
            group,
            "the call only observes: run it (and what reads its value) only in eager, under "
            "`if not torch.compiler.is_compiling():`",
        )

    def _with(self, ctx: FixContext, node: cst.With, item: cst.WithItem | None) -> Rewrite | NoFix:
        group = guard_group(ctx, node, "block")
        if not isinstance(group, NoFix):
            return guard_rewrite(
                ctx,
                group,
                "the `with` block only observes: run it only in eager, under "
                "`if not torch.compiler.is_compiling():`",
            )
        items = [item] if item is not None else list(node.items)
        if any(i.asname is not None for i in items):
            return NoFix(
                f"{group.reason}; the context manager's value (`as ...`) is used by the block"
            )
        if node.asynchronous is not None:
            return NoFix("an `async with` is not rewritten")
        test = cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()")
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        for i in items:
            swap = cst.IfExp(
                test=test,
                body=i.item.with_changes(lpar=[], rpar=[]),
                orelse=cst.parse_expression("contextlib.nullcontext()"),
                lpar=[cst.LeftParen()],
                rpar=[cst.RightParen()],
            )
            changes.append((i.item, swap))
        return Rewrite(
            title="enter the context manager only in eager: "
            "`with (cm if not torch.compiler.is_compiling() else contextlib.nullcontext()):`",
            changes=changes,
            imports=("torch", "contextlib"),
        )
