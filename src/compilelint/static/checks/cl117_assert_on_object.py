"""CL117: ``assert <tuple, dict or object>`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.checks.base import Check

# Messages dynamo reads as a constant (LOAD_CONST): only then is the assert rewritten
_LITERAL = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Imaginary)


class AssertOnObject(Check):
    """``assert args`` where ``args`` is the function's ``*args`` tuple, or ``assert d`` where
    ``d`` is a local bound once to a tuple, list or dict display holding a tensor. torch 2.13
    rewrites an ``assert`` with no message or a literal one into ``torch._assert_async`` of
    ``torch.scalar_tensor(<test>)`` whenever the test is neither a Python constant, a tensor nor
    a symbolic size; a container that holds objects or tensors cannot be put into the graph
    ("Failed to convert args/kwargs to proxy", "TypeError when making fake tensor call"), and
    the frame breaks. A ``*args`` tuple breaks unless every argument is a Python constant; a
    display is reported when one of its items is a tensor (phase 2 decides that)."""

    CODE = "CL117"

    def visit_Assert(self, node: cst.Assert) -> None:
        if node.msg is not None and not isinstance(node.msg, _LITERAL):
            return  # no rewrite: a plain truth test of the container, which dynamo folds
        test = node.test
        if not isinstance(test, cst.Name) or self.w.func is None or self.w.untraced_depth:
            return
        scope = self.w.scope
        name = test.value
        kind, taint = self._container(scope, name)
        if kind:
            self.report(node, requires=taint, expr=name, kind=kind)

    def _container(self, scope: object, name: str) -> tuple[str, Taint]:
        facts = getattr(scope, "facts", None)
        rebound: set[str] = getattr(scope, "rebound", set())
        if facts is not None and name not in rebound:
            for prm in facts.params:
                if prm.name == name and prm.index == -2:
                    return "the `*args` tuple", NO_TAINT
        bound = getattr(scope, "aliases", {}).get(name)
        if isinstance(bound, (cst.Tuple, cst.List)):
            items = [e.value for e in bound.elements]
            kind = "a tuple" if isinstance(bound, cst.Tuple) else "a list"
        elif isinstance(bound, cst.Dict):
            items = [e.value for e in bound.elements]
            kind = "a dict"
        else:
            return "", NO_TAINT
        for item in items:
            taint = self.taint(item)
            if taint:
                return kind, taint
        return "", NO_TAINT
