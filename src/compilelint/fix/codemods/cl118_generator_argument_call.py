"""CL118: a generator expression unpacked into a call's arguments (``f(*(g(c) for g in gs))``)
becomes a list comprehension (``f(*[g(c) for g in gs])``). ``*``-unpacking exhausts the
generator before the call, so the callee receives the same tuple; torch can rebuild a list, but
not a generator, when it resumes the calling frame after a break in the callee (zuko's
``LazyComposedTransform.forward``). A generator passed as a plain argument may be consumed
lazily by the callee: no fix."""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class StarredGeneratorList(Codemod):
    CODE = "CL118"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if any(isinstance(a.value, cst.GeneratorExp) for a in c.args)
        ]
        if not calls:
            return NoFix("the call with a generator argument was not found in the file")
        call = calls[0]
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        for arg in call.args:
            gen = arg.value
            if not isinstance(gen, cst.GeneratorExp):
                continue
            if arg.star != "*":
                return NoFix(
                    f"`{ctx.code(gen).strip()}` is passed as an argument, not `*`-unpacked: the "
                    "callee may consume it lazily, so a list in its place is for the author "
                    "to check"
                )
            changes.append((gen, cst.ListComp(elt=gen.elt, for_in=gen.for_in)))
        return Rewrite(
            title="unpack a list comprehension instead of a generator (the same arguments)",
            changes=changes,
        )
