"""A tensor passed where torch takes a Python number: ``alpha=`` of ``add``/``sub`` and
``value=`` of ``addcmul``/``addcdiv`` (torchode's ``torch.add(self.atol, y.abs(),
alpha=self.rtol)`` with ``rtol`` a buffer). Torch reads the number with ``.item()``: under
torch.compile the graph breaks there (GB0033 "Data dependent operator", torch 2.13).

The scale moves onto the operand it multiplies, as a 0-d tensor that stays in the graph:

- ``torch.add(a, b, alpha=s)``       -> ``torch.add(a, b * s.detach())``
- ``x.sub_(y, alpha=s)``             -> ``x.sub_(y * s.detach())``
- ``torch.addcmul(a, t1, t2, value=s)`` -> ``torch.addcmul(a, t1 * s.detach(), t2)``

The same value (``input + s * other``; ``input + s * t1 * t2``; ``input + s * t1 / t2``) up to
rounding; ``.detach()`` because the number read from ``s`` carried no gradient. A 0-d tensor
does not change the result's dtype within its category (float32 times a float64 0-d tensor is
float32, as with a Python float); a one-element tensor of more dimensions would broadcast the
result to its rank, which the verification run shows (outputs compared). Only offered where
torch observed the break (the static stage does not type every such value).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import atom
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

# function/method -> the keyword that torch reads as a Python number
SCALED = {
    "add": "alpha",
    "add_": "alpha",
    "sub": "alpha",
    "sub_": "alpha",
    "subtract": "alpha",
    "addcmul": "value",
    "addcmul_": "value",
    "addcdiv": "value",
    "addcdiv_": "value",
}


def _name(call: cst.Call) -> str | None:
    f = call.func
    if isinstance(f, cst.Attribute):
        return f.attr.value
    return None


def _is_number(e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.UnaryOperation):
        return _is_number(e.expression)
    return isinstance(e, (cst.Integer, cst.Float))


def number_kw_call(n: cst.CSTNode) -> bool:
    """``<...>.add(..., alpha=e)`` (and the others of :data:`SCALED`) with ``e`` not a numeric
    literal."""
    if not isinstance(n, cst.Call):
        return False
    name = _name(n)
    kw = SCALED.get(name or "")
    if kw is None:
        return False
    return any(
        a.keyword is not None and a.keyword.value == kw and not _is_number(a.value) for a in n.args
    )


def scale_into_operand(ctx: FixContext, finding: Finding) -> Rewrite | NoFix | None:
    """The rewrite for the number-keyword call at ``finding``; None when there is none there."""
    calls = [c for c in ctx.nodes_at(finding, cst.Call) if number_kw_call(c)]
    if not calls:
        return None
    call = calls[0]
    name = _name(call) or ""
    kw = SCALED[name]
    func = call.func
    assert isinstance(func, cst.Attribute)
    torch_fn = ctx.code(func.value).strip() == ctx.torch()
    others = [
        a for a in call.args if a.keyword is not None and a.keyword.value not in (kw, "other")
    ]
    if others or any(a.star for a in call.args):
        return NoFix(
            f"`{name}` is called with other keywords or unpacked arguments "
            f"({', '.join(ctx.code(a).strip() for a in others) or '*'}): not rewritten"
        )
    scale_arg = next(a for a in call.args if a.keyword is not None and a.keyword.value == kw)
    positional = [a for a in call.args if a.keyword is None]
    named_other = [a for a in call.args if a.keyword is not None and a.keyword.value == "other"]
    # the operand the number multiplies: `other` of add/sub, `tensor1` of addcmul/addcdiv
    at = 1 if torch_fn else 0
    if named_other and name.startswith(("add", "sub")) and not name.startswith("addc"):
        target = named_other[0]
    elif len(positional) > at:
        target = positional[at]
    else:
        return NoFix(f"the operand that `{kw}=` scales in `{name}` was not found")
    scale = scale_arg.value
    scaled = cst.BinaryOperation(
        left=atom(target.value),
        operator=cst.Multiply(),
        right=cst.Call(func=cst.Attribute(value=atom(scale), attr=cst.Name("detach"))),
    )
    args: list[cst.Arg] = []
    for a in call.args:
        if a is scale_arg:
            continue
        args.append(a.with_changes(value=scaled) if a is target else a)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = call.with_changes(args=args)
    return Rewrite(
        title=(
            f"move `{kw}={ctx.code(scale).strip()}` onto the operand it scales: a 0-d tensor "
            "that stays in the graph (torch reads a Python number there)"
        ),
        changes=[(call, new)],
    )
