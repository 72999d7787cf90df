"""CL104: an assert on a tensor whose message is computed gets its literal template instead
(``f"bad {x}"`` -> ``"bad {x}"``, ``"bad %d" % n`` -> ``"bad %d"``, ``"{}".format(n)`` ->
``"{}"``); torch.compile turns an assert with a literal message into an in-graph check. A test
that joins tensor conditions with ``and``/``or``/``not`` (torchdiffeq's ``assert diff.all() or
(~diff).all(), ...``) calls ``bool()`` on a tensor, a break either way: it becomes one boolean
tensor (``torch.logical_or(diff.all(), (~diff).all())``), which asserts the same truth value."""

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
        if not found:
            return NoFix("the assert was not found in the file")
        node = found[0]
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        titles: list[str] = []
        test = joined_test(ctx, node.test)
        if test is not None:
            changes.append((node.test, test))
            titles.append("join the tensor conditions with `torch.logical_*`")
        msg = node.msg
        if msg is not None and not isinstance(msg, cst.SimpleString):
            literal = literal_message(ctx, msg)
            if literal is None:
                return NoFix("the message is not built from a string literal; write one by hand")
            changes.append((msg, literal.with_changes(lpar=msg.lpar, rpar=msg.rpar)))
            titles.append("use the message's literal text")
        if not changes:
            return NoFix(
                "the assert has a literal message and tests one tensor: nothing to rewrite"
            )
        return Rewrite(title="; ".join(titles), changes=changes)


def joined_test(ctx: FixContext, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """A test of tensor conditions joined by ``and``/``or``/``not`` as one boolean tensor, or
    None when it is not such a join (a single condition, or a part not known to be a tensor)."""
    from compilelint.fix.codemods.cl101_tensor_dependent_branch import tensor_test

    inner = test
    while isinstance(inner, cst.UnaryOperation) and isinstance(inner.operator, cst.Not):
        inner = inner.expression
    if not isinstance(inner, cst.BooleanOperation) and inner is test:
        return None
    got = tensor_test(ctx, test)
    if got is None:
        return None
    return got.with_changes(lpar=test.lpar, rpar=test.rpar)


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
