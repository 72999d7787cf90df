"""CL104: ``assert <tensor>, <non-literal message>`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

# Messages dynamo reads as a constant: a plain (or implicitly concatenated) string literal.
_LITERAL = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Imaginary)


class TensorDependentAssert(Check):
    CODE = "CL104"

    def visit_Assert(self, node: cst.Assert) -> None:
        msg = node.msg
        if msg is None or isinstance(msg, _LITERAL):
            return  # rewritten to torch._assert_async: no break
        taint = self.taint(node.test)
        if taint:
            self.report(node, requires=taint, expr=self.code(node.test), msg=self.code(msg, 40))
