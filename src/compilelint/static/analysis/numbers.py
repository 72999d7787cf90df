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

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import FileFacts
from compilelint.static.analysis.values import Value

_NUMBER_TYPES = frozenset({"int", "float"})
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
