"""A list filled by a loop and read once after it: ``L = []`` right before ``for ...:``, the
loop appending to ``L``, ``L`` read once outside the loop (say ``torch.stack(L)``). The
lengths (``lengths``, ``row_lengths``) and segment (``segments``) rewrites replace the three
with one tensor expression; this module finds them."""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import bound_names, name_nodes
from compilelint.fix.context import FixContext


def sole_append(loop: cst.For) -> tuple[cst.Call, str] | None:
    """(the ``L.append(x)`` call, ``L``) when the loop's body is that one statement."""
    body = loop.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return None
    st = body.body[0]
    if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
        return None
    ex = st.body[0]
    return append_call(ex.value) if isinstance(ex, cst.Expr) else None


def append_call(e: cst.BaseExpression) -> tuple[cst.Call, str] | None:
    """(the call, ``L``) for ``L.append(x)``, ``L`` a name, one positional argument."""
    if not (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "append"
        and isinstance(e.func.value, cst.Name)
        and len(e.args) == 1
        and e.args[0].keyword is None
        and e.args[0].star == ""
    ):
        return None
    return e, e.func.value.value


def filled_list(
    ctx: FixContext, fn: cst.FunctionDef, loop: cst.For, lst: str
) -> tuple[cst.SimpleStatementLine, cst.Name] | None:
    """(``lst = []``, the one read of ``lst`` outside the loop) when ``lst`` is bound by that
    statement alone, right before the loop in the same block, is not bound by the loop's
    target, and is read exactly once outside the loop; else None."""
    if lst in {n.value for n in name_nodes(loop.target)}:
        return None
    block = ctx.parent(loop)
    stmts = list(getattr(block, "body", ()))
    i = next((k for k, s in enumerate(stmts) if s is loop), None)
    if i is None or i == 0:
        return None
    empty = stmts[i - 1]
    if not (
        isinstance(empty, cst.SimpleStatementLine)
        and len(empty.body) == 1
        and isinstance(empty.body[0], cst.Assign)
        and len(empty.body[0].targets) == 1
        and isinstance(empty.body[0].targets[0].target, cst.Name)
        and empty.body[0].targets[0].target.value == lst
        and isinstance(empty.body[0].value, cst.List)
        and not empty.body[0].value.elements
    ):
        return None
    if len(bound_names(fn).get(lst, [])) != 1:
        return None
    reads = [
        r
        for r in name_nodes(fn.body, lst, reads_only=True)
        if not any(a is loop for a in ctx.ancestors(r))
    ]
    if len(reads) != 1:
        return None
    return empty, reads[0]
