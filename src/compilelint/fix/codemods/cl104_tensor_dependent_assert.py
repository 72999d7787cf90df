"""CL104: an assert on a tensor whose message is computed gets its literal template instead
(``f"bad {x}"`` -> ``"bad {x}"``, ``"bad %d" % n`` -> ``"bad %d"``, ``"{}".format(n)`` ->
``"{}"``); torch.compile turns an assert with a literal message into an in-graph check."""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding


class AssertLiteralMessage(Codemod):
    CODE = "CL104"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        found = ctx.nodes_at(finding, cst.Assert)
        if not found or found[0].msg is None:
            return NoFix("the assert was not found in the file")
        node = found[0]
        msg = node.msg
        assert msg is not None
        literal = literal_message(ctx, msg)
        if literal is None:
            return NoFix("the message is not built from a string literal; write one by hand")
        return Rewrite(
            title="use the message's literal text",
            changes=[(msg, literal.with_changes(lpar=msg.lpar, rpar=msg.rpar))],
        )


def literal_message(ctx: FixContext, msg: cst.BaseExpression) -> cst.SimpleString | None:
    """The literal template of a computed message (an f-string, ``"...".format(...)``,
    ``"..." % ...``), or None."""
    if isinstance(msg, cst.FormattedString):
        prefix = msg.start[: -len(msg.quote)]
        if "b" in prefix.lower():
            return None
        body = []
        for part in msg.parts:
            if isinstance(part, cst.FormattedStringText):
                body.append(part.value.replace("{{", "{").replace("}}", "}"))
            else:
                body.append(ctx.code(part))
        plain = prefix.replace("f", "").replace("F", "")
        text = f"{plain}{msg.quote}{''.join(body)}{msg.quote}"
        try:
            got = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        return got if isinstance(got, cst.SimpleString) else None
    if (
        isinstance(msg, cst.Call)
        and isinstance(msg.func, cst.Attribute)
        and msg.func.attr.value == "format"
        and isinstance(msg.func.value, cst.SimpleString)
    ):
        return msg.func.value.with_changes(lpar=[], rpar=[])
    if (
        isinstance(msg, cst.BinaryOperation)
        and isinstance(msg.operator, cst.Modulo)
        and isinstance(msg.left, cst.SimpleString)
    ):
        return msg.left.with_changes(lpar=[], rpar=[])
    return None
