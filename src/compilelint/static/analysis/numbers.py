"""Which abstract values are certainly Python numbers (int or float), never tensors.

The tensor inference asks "may this be a tensor?" (a least fixpoint over symbolic sources, see
:mod:`~compilelint.static.analysis.summaries`). Rewrites need the opposite, stronger question:
"is this certainly a Python number?", dynamo's ``ConstantVariable`` of an int or a float. A
number combined with a 0-d tensor by arithmetic stays a 0-d tensor (``eps * t``), so a codemod
that keeps a value a tensor may leave such operands as they are.

A value is certainly a number when it is:

- a scalar of type int or float (a literal, an annotated ``float`` parameter, arithmetic of
  such values: what the walker already folds into ``("S", typ)``);
- ``self.<attr>`` (``A|C|attr``, no element path) where every value the class ``C`` of this
  file assigns to the attribute is certainly a number (``self.eps = eps`` in ``__init__``);
- a parameter (``P|f|p``, no element path) with an int or float literal default and no tensor
  annotation (``def __init__(self, dim, base_eps=0.1)``);
- a join of such values.

Anything else (a config attribute, an attribute assigned from another attribute, a parameter
without a default, a bool) is not known to be a number.
"""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import FileFacts
from compilelint.static.analysis.values import Value
from compilelint.static.analysis.walker import self_attr

_NUMBER_TYPES = frozenset({"int", "float", "size"})
_MAX_DEPTH = 6


def certainly_number(v: Value, facts: FileFacts, _depth: int = 0) -> bool:
    """Whether ``v`` (a value seen in the file of ``facts``) is certainly an int or a float."""
    if _depth > _MAX_DEPTH:
        return False
    if v[0] == "J":
        return all(certainly_number(m, facts, _depth + 1) for m in V.members(v))
    if v[0] == "S":
        return v[1] in _NUMBER_TYPES
    if v[0] != "Y":
        return False
    base, steps = V.split_source(v[1])
    if steps:
        return False
    kind, _, rest = base.partition("|")
    if kind == "A":
        cls, _, attr = rest.rpartition("|")
        cf = facts.classes.get(cls)
        assigned = cf.attrs.get(attr) if cf is not None else None
        return bool(assigned) and all(
            certainly_number(a, facts, _depth + 1)
            for a in assigned  # type: ignore[union-attr]
        )
    if kind == "P":
        fq, _, pname = rest.rpartition("|")
        fn = facts.functions.get(fq)
        prm = next((p for p in fn.params if p.name == pname), None) if fn is not None else None
        return (
            prm is not None
            and prm.annotation != "tensor"
            and prm.default == "literal"
            and bool(prm.literal)
            and type(prm.literal[0]) in (int, float)
        )
    return False


# ---------------------------------------------------------------------------- from the source
# Where the walker's values lose the number (arithmetic of symbolic sources joins them:
# ``self.scale = (dim // heads) ** -0.5`` is a join of two parameters), the assignments
# themselves still show it: an expression only numbers (or tensors) can evaluate.

_NUMERIC_ONLY_OPS = (cst.Power, cst.FloorDivide)  # `[1] ** 2`, `"a" // 2` raise
_CONVERSIONS = frozenset({"float", "int", "abs", "round"})


def numeric_source(e: cst.BaseExpression, numbers: frozenset[str] = frozenset()) -> bool:
    """Whether evaluating ``e`` without an error makes it a number (or a tensor, which a
    0-d tensor combines with as well): a number literal, a name in ``numbers``, ``float(x)`` /
    ``int(x)`` / ``math.f(...)``, ``x ** y`` / ``x // y``, and ``+ - * /`` where one operand is
    such an expression (``0.2 * heads``: a float times a list or a string raises)."""
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.Name):
        return e.value in numbers
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return numeric_source(e.expression, numbers)
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Name) and f.value in _CONVERSIONS and len(e.args) == 1:
            return True
        return (
            isinstance(f, cst.Attribute)
            and isinstance(f.value, cst.Name)
            and f.value.value == "math"
        )
    if isinstance(e, cst.BinaryOperation):
        if isinstance(e.operator, _NUMERIC_ONLY_OPS):
            return True
        if isinstance(e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            return numeric_source(e.left, numbers) or numeric_source(e.right, numbers)
    return False


def numeric_attribute(klass: cst.ClassDef, attr: str) -> bool:
    """Whether every assignment of ``attr`` in the class body (``attr = 0.07``) and of
    ``self.<attr>`` in its methods is :func:`numeric_source` (a method's parameters with a
    number default count as numbers there), with at least one such assignment."""
    found = False
    body = klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ()
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == attr for t in small.targets
                ):
                    if not numeric_source(small.value):
                        return False
                    found = True
        if not isinstance(st, cst.FunctionDef):
            continue
        params = st.params
        numbers = frozenset(
            p.name.value
            for p in [*params.params, *params.kwonly_params]
            if p.default is not None and numeric_source(p.default)
        )
        for node in _assignments(st):
            for t in node.targets:
                tt = t.target
                if self_attr(tt) == attr:
                    if not numeric_source(node.value, numbers):
                        return False
                    found = True
    return found


def _assignments(fn: cst.FunctionDef) -> list[cst.Assign]:
    out: list[cst.Assign] = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            out.append(n)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            t = n.target
            if isinstance(t, cst.Attribute):
                # `self.x += v` keeps a number a number only with a number `v`
                out.append(
                    cst.Assign([cst.AssignTarget(t)], cst.BinaryOperation(t, cst.Add(), n.value))
                )

    fn.visit(V())
    return out
