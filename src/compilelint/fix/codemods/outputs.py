"""A selection that is part of what the function gives back (returned, or appended to a list
of results): its size is part of the output, so no static-shape rewrite returns the same
thing. The honest remedy moves the selection to the caller: the function returns the
full-size values **and the mask**, and the caller selects after the compiled call
(``out["scores"][out["keep"]]``). This module writes that patch, never applied (the caller's
code must change with it)::

    results.append({"scores": s[keep], "boxes": b[keep].exp()})
 -> results.append({"scores": s, "boxes": b.exp(), "keep": keep})

    return boxes[valid], scores[valid]
 -> return boxes, scores, valid

Only where the values between the selection and the output are elementwise steps of it
(``.exp()``, ``.sigmoid()``, ``* 2``, the "elem" steps of :mod:`rowwise`: ``F.gelu(v)``,
``self.act(v)``), so that the full-size value at the selected positions
is what the selection held; and only with a mask that is a name (returned as it is).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import bound_names, name_nodes, number_expr, side_effect
from compilelint.fix.codemods.rowwise import ELEM, call_step
from compilelint.fix.codemods.selection import Selection, subscript_selection
from compilelint.fix.context import FixContext
from compilelint.fix.records import Proposal

# elementwise methods without arguments: the value at a position is a function of the
# selection's value there
_ELEMENTWISE = frozenset(
    {
        "abs",
        "neg",
        "exp",
        "log",
        "sqrt",
        "sigmoid",
        "tanh",
        "relu",
        "float",
        "double",
        "half",
        "long",
        "int",
        "bool",
        "detach",
        "clone",
        "round",
        "floor",
        "ceil",
    }
)
_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)


def _returned_list(ctx: FixContext, lst: cst.BaseExpression) -> bool:
    """``lst`` is a name bound once in its function, to ``[]``, read only by ``.append(...)``
    and by ``return lst`` (alone or as an element of the returned tuple): what is appended
    reaches the caller as it is (not concatenated or stacked here)."""
    fn = ctx.function(lst)
    if not isinstance(lst, cst.Name) or fn is None:
        return False
    binds = bound_names(fn.body).get(lst.value, [])
    if len(binds) != 1:
        return False
    a = ctx.parent(binds[0])
    if not (isinstance(a, cst.Assign) and isinstance(a.value, cst.List) and not a.value.elements):
        return False
    for r in name_nodes(fn.body, lst.value, reads_only=True):
        p = ctx.parent(r)
        if isinstance(p, cst.Attribute) and p.value is r and p.attr.value == "append":
            continue
        if isinstance(p, cst.Element):
            tup = ctx.parent(p)
            if isinstance(tup, cst.Tuple):
                p = ctx.parent(tup)
        if isinstance(p, cst.Return) and ctx.function(p) is fn:
            continue
        return False
    return True


def _carrier(ctx: FixContext, node: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
    """The value ``node`` is returned or appended in (``return <v>``, ``out.append(<v>)``),
    reached from ``node`` through elementwise steps and displays only, with how it leaves."""
    e: cst.CSTNode = node
    while True:
        p = ctx.parent(e)
        if isinstance(p, cst.Return) and p.value is e:
            return e, "return"  # type: ignore[return-value]
        if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and call_step(ctx, call, e) == ELEM:  # type: ignore[arg-type]
                e = call  # `F.gelu(v)`, `self.act(v)`: elementwise (rowwise's table)
                continue
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append"
                and len(call.args) == 1
                and isinstance(ctx.parent(call), cst.Expr)
                and _returned_list(ctx, call.func.value)
            ):
                return e, "append"  # type: ignore[return-value]
            return None
        if isinstance(p, cst.Attribute) and p.value is e:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and call.func is p and not call.args:
                if p.attr.value in _ELEMENTWISE:
                    e = call
                    continue
            if isinstance(call, cst.Call) and call.func is p:
                if call_step(ctx, call, e) == ELEM:  # type: ignore[arg-type]
                    e = call  # `v.relu()`, `v.softplus(beta=2)`: elementwise
                    continue
            return None
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, _ARITH):
            other = p.right if p.left is e else p.left
            if number_expr(other):
                e = p
                continue
            return None
        if isinstance(p, (cst.Element, cst.DictElement)) and p.value is e:
            display = ctx.parent(p)  # the display (a tuple, list or dict) holding it
            if not isinstance(display, (cst.Tuple, cst.List, cst.Dict)):
                return None
            e = display
            continue
        return None


def output_proposal(ctx: FixContext, sel: Selection, why: str) -> Proposal | None:
    """The patch returning the full-size values with the mask, for a selection that is (an
    elementwise step of) the value returned or appended; None where it is not."""
    node = sel.node
    if (
        not isinstance(node, cst.Subscript)
        or node.value is not sel.x
        or not isinstance(sel.m, cst.Name)
        or side_effect(sel.x) is not None
    ):
        return None
    got = _carrier(ctx, node)
    if got is None:
        return None
    carrier, how = got
    mask = sel.m.value
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    found: list[cst.Subscript] = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> bool:
            s = subscript_selection(n)
            if s is not None and isinstance(s.m, cst.Name) and s.m.value == mask:
                found.append(n)
                return False
            return True

    carrier.visit(V())
    for sub in found:
        if side_effect(sub.value) is not None or _carrier(ctx, sub) is None:
            return None  # another selection with the mask that is not elementwise to the output
        changes.append((sub, sub.value.with_changes(lpar=sub.lpar, rpar=sub.rpar)))
    # the selections inside the carrier are replaced through the carrier's own change
    full = {id(sub): new for sub, new in changes}

    class Swap(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return full.get(id(original), updated)

    replaced = carrier.visit(Swap())
    m = cst.Name(mask)
    if isinstance(replaced, (cst.Dict, cst.Tuple)) and replaced.elements:
        els = list(replaced.elements)
        last = els[-1]
        add: cst.BaseElement | cst.BaseDictElement = (
            cst.DictElement(cst.SimpleString(f'"{mask}"'), m)
            if isinstance(replaced, cst.Dict)
            else cst.Element(m)
        )
        add = add.with_changes(comma=last.comma)
        sep = (
            els[-2].comma if len(els) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        els[-1] = last.with_changes(comma=sep)
        new: cst.BaseExpression = replaced.with_changes(elements=[*els, add])
        after = (
            f'`out["<key>"][out["{mask}"]]`'
            if isinstance(replaced, cst.Dict)
            else f"`v[{mask}]` for each value `v` of the tuple"
        )
    else:
        new = cst.Tuple([cst.Element(replaced), cst.Element(m)])  # type: ignore[arg-type]
        if how == "return":
            new = new.with_changes(lpar=[], rpar=[])
        after = f"`v[{mask}]` for the value `v`"
    where = "returns" if how == "return" else "appends"
    return Proposal(
        title=f"select after the compiled call: the function {where} the full-size values with "
        f"the mask `{mask}`, and the caller selects, {after}",
        changes=[(carrier, new)],
        reason=f"{why}. The selection is part of the output (its size is the data's): the "
        f"patch returns the full-size values and the mask instead, so every caller of the "
        f"function must select with the mask itself; not applied",
    )
