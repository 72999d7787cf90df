"""Counts of data-dependent results, computed without the result (shared by CL110 and CL111;
issue 22, branch fixstruct).

Training and metric code often builds a data-dependent tensor only to count it: the number of
positive anchors for a loss's normalizer, of foreground pixels, of classes present in a batch::

    num_pos = len(torch.nonzero(pos))        ->  num_pos = pos.count_nonzero()
    n = pos.nonzero().size(0)                ->  n = pos.count_nonzero()
    k = x[valid].shape[0]                    ->  k = valid.count_nonzero()
    c = torch.unique(labels).numel()         ->  c = labels.flatten().sort().values.diff().ne(0)
                                                     .sum() + (labels.numel() > 0)
    z = torch.count_nonzero(x[valid])        ->  z = torch.count_nonzero(torch.where(valid, x, 0))
    loss.sum() / max(num_pos, 1)             ->  loss.sum() / num_pos.clamp(min=1)

The count (rows: ``len``, ``.size(0)``, ``.shape[0]``; elements: ``.numel()``) is the same
number, as a 0-d tensor instead of a Python int. That is why the rewrite requires every use of
the count to be tensor arithmetic (an operand of ``+ - * /``, the first argument of ``max(c, k)``
/ ``min(c, k)`` with a number ``k``, which become ``clamp``; ``float(c)``, which becomes
``c.float()``), directly or through one name bound once to it: a Python number used as a
branch condition, a size or a return value stays as it is (see the config remedy).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from compilelint.fix.codemods.base import (
    atom,
    bound_names,
    name_nodes,
    paren,
    side_effect,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

_ROWS, _ELEMENTS = "rows", "elements"


def _wrapper(ctx: FixContext, node: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """The expression counting ``node`` and what it counts: ``len(node)``, ``node.size(0)``,
    ``node.shape[0]``, ``node.size()[0]`` (rows); ``node.numel()``, ``torch.numel(node)``
    (elements)."""
    p = ctx.parent(node)
    if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and len(call.args) == 1:
            f = ctx.code(call.func).strip()
            if f == "len":
                return call, _ROWS
            if f == f"{ctx.torch()}.numel":
                return call, _ELEMENTS
        return None
    if not isinstance(p, cst.Attribute) or p.value is not node:
        return None
    outer = ctx.parent(p)
    attr = p.attr.value
    if attr == "shape":
        return _index0(ctx, outer)
    if not isinstance(outer, cst.Call) or outer.func is not p:
        return None
    args = [ctx.code(a.value).strip() for a in outer.args]
    if attr in ("numel", "nelement") and not args:
        return outer, _ELEMENTS
    if attr == "size":
        if args == ["0"] and (
            outer.args[0].keyword is None or outer.args[0].keyword.value == "dim"
        ):
            return outer, _ROWS
        if not args:
            return _index0(ctx, ctx.parent(outer) if ctx.parent(outer) is not None else outer)
    return None


def _index0(ctx: FixContext, sub: cst.CSTNode | None) -> tuple[cst.BaseExpression, str] | None:
    if (
        isinstance(sub, cst.Subscript)
        and len(sub.slice) == 1
        and isinstance(sub.slice[0].slice, cst.Index)
        and isinstance(sub.slice[0].slice.value, cst.Integer)
        and sub.slice[0].slice.value.value == "0"
    ):
        return sub, _ROWS
    return None


def _count_of(
    ctx: FixContext, node: cst.BaseExpression, what: str
) -> tuple[cst.BaseExpression, str] | None:
    """The fixed-shape count of ``node`` and its words, or None for a kind not counted."""
    t = ctx.torch()
    if isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        m = node.slice[0].slice.value
        if what != _ROWS or side_effect(m) is not None:
            return None
        return template("__m__.count_nonzero()", m=atom(m)), "the True entries of the mask"
    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return None
    f = node.func
    head, _, name = ctx.code(f).strip().rpartition(".")
    pos = [a.value for a in node.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    if head == t:
        if not pos:
            return None
        recv, rest = pos[0], pos[1:]
    elif isinstance(f, cst.Attribute):
        recv, rest = f.value, pos
    else:
        return None
    if side_effect(recv) is not None:
        return None
    if name in ("nonzero", "argwhere") and not rest and not kw:
        c = template("__m__.count_nonzero()", m=atom(recv))
        if what == _ELEMENTS:
            c = template("__c__ * __m__.dim()", c=c, m=atom(recv))
        return c, "the nonzero entries"
    if name == "unique" and not rest and set(kw) <= {"sorted"}:
        s = kw.get("sorted")
        if s is not None and not (isinstance(s, cst.Name) and s.value == "True"):
            return None
        c = template(
            "__t__.flatten().sort().values.diff().ne(0).sum() + (__t__.numel() > 0)",
            t=atom(recv),
        )
        return c, "the distinct values (one more than the changes along the sorted values)"
    return None


def _uses(ctx: FixContext, wrapper: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The expressions where the count is used: the wrapper itself, or the reads of the one
    name it is bound to (bound once in the function); None when it is bound otherwise."""
    p = ctx.parent(wrapper)
    if not (isinstance(p, cst.Assign) and p.value is wrapper):
        return [wrapper]
    if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
        return None
    name = p.targets[0].target.value
    fn = ctx.function(wrapper)
    if fn is None or len(bound_names(fn.body).get(name, [])) != 1:
        return None
    line = ctx.span(p)[0]
    reads: list[cst.BaseExpression] = [
        r for r in name_nodes(fn.body, name) if ctx.span(r)[0] > line
    ]
    if any(ctx.function(r) is not fn for r in reads):
        return None
    return reads


def _tensor_use(
    ctx: FixContext, use: cst.BaseExpression
) -> tuple[cst.CSTNode, Callable[[cst.BaseExpression], cst.BaseExpression]] | bool | None:
    """True: ``use`` is an operand of tensor-compatible arithmetic as it is; a (node, new
    node) pair: a builtin around it becomes a tensor method (``max(c, 1)`` ->
    ``c.clamp(min=1)``, ``float(c)`` -> ``c.float()``); None: a use that needs a Python
    number."""
    p = ctx.parent(use)
    if isinstance(p, cst.BinaryOperation) and not isinstance(p.operator, cst.MatrixMultiply):
        return True
    if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
        call = ctx.parent(p)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        f = call.func.value
        if f == "float" and len(call.args) == 1:
            return call, lambda c: template("__c__.float()", c=atom(c))
        if f in ("max", "min") and len(call.args) == 2 and call.args[0] is p:
            k = call.args[1].value
            if isinstance(k, (cst.Integer, cst.Float)):
                kw = "min" if f == "max" else "max"
                return call, lambda c: template(f"__c__.clamp({kw}=__k__)", c=atom(c), k=k)
    return None


def counted(ctx: FixContext, node: cst.BaseExpression) -> Rewrite | None:
    """The rewrite of a count of the data-dependent ``node`` (``nonzero``, ``unique``, a mask
    selection) as a fixed-shape count, or None when ``node`` is not counted or the count is
    used as a Python number."""
    p = ctx.parent(node)
    outer = ctx.parent(p) if isinstance(p, cst.Arg) else None
    if (
        isinstance(node, cst.Subscript)
        and isinstance(outer, cst.Call)
        and len(outer.args) == 1
        and ctx.code(outer.func).strip() == f"{ctx.torch()}.count_nonzero"
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and side_effect(node) is None
    ):
        m = node.slice[0].slice.value
        new = template(f"{ctx.torch()}.where(__m__, __x__, 0)", m=m, x=node.value)
        return Rewrite(
            title="count the nonzero selected entries over the full tensor, the others zeroed",
            changes=[(node, new)],
            imports=("torch",),
        )
    got = _wrapper(ctx, node)
    if got is not None:
        wrapper, what = got
        count = _count_of(ctx, node, what)
        if count is None:
            return None
        changes = _count_changes(ctx, wrapper, count[0])
        words = count[1]
    else:
        # `nz = m.nonzero().squeeze(1)` ... `len(nz)`: a name read only in counts
        via = _via_name(ctx, node)
        if via is None:
            return None
        stmt, reads = via
        changes = [(stmt, cst.RemovalSentinel.REMOVE)]  # type: ignore[list-item]
        words = ""
        for r in reads:
            w = _wrapper(ctx, r)
            count = _count_of(ctx, node, _ELEMENTS) if w is not None else None
            if w is None or count is None:
                return None
            c, words = count
            if w[1] == _ROWS and isinstance(node, cst.Call) and _attr(node) != "unique":
                c = _count_of(ctx, node, _ROWS)[0]  # type: ignore[index]
                if not _rows_kept(ctx, node):
                    c = count[0]
            got_changes = _count_changes(ctx, w[0], c)
            if got_changes is None:
                return None
            changes.extend(got_changes)
    if changes is None:
        return None
    return Rewrite(
        title=f"count {words} without building the data-dependent result (the same number, "
        "as a 0-d tensor: its uses are tensor arithmetic)",
        changes=changes,
    )


def _attr(call: cst.Call) -> str:
    f = call.func
    return f.attr.value if isinstance(f, cst.Attribute) else ""


_FLAT = {"squeeze": (["1"], ["-1"]), "view": (["-1"],), "reshape": (["-1"],), "flatten": ([],)}


def _rows_kept(ctx: FixContext, node: cst.BaseExpression) -> bool:
    """``node`` (a ``nonzero``) reaches its name through ``squeeze(1)`` only (rows kept) rather
    than a flattening (``view(-1)``: one row per coordinate)."""
    p = ctx.parent(node)
    return isinstance(p, cst.Attribute) and p.attr.value == "squeeze"


def _via_name(
    ctx: FixContext, node: cst.BaseExpression
) -> tuple[cst.SimpleStatementLine, list[cst.Name]] | None:
    """The statement binding ``node`` (through one ``squeeze(1)``/``view(-1)``/``reshape(-1)``/
    ``flatten()`` of a ``nonzero``) to a name bound once, read only after it, and the reads."""
    e: cst.BaseExpression = node
    p = ctx.parent(e)
    if isinstance(p, cst.Attribute) and p.attr.value in _FLAT and isinstance(node, cst.Call):
        call = ctx.parent(p)
        args = (
            [ctx.code(a.value).strip() for a in call.args] if isinstance(call, cst.Call) else None
        )
        if args is None or args not in _FLAT[p.attr.value] or _attr(node) == "unique":
            return None
        e = call  # type: ignore[assignment]
        p = ctx.parent(e)
    if not (isinstance(p, cst.Assign) and p.value is e and len(p.targets) == 1):
        return None
    t = p.targets[0].target
    stmt = ctx.parent(p)
    fn = ctx.function(node)
    if (
        not isinstance(t, cst.Name)
        or not isinstance(stmt, cst.SimpleStatementLine)
        or len(stmt.body) != 1
        or fn is None
        or len(bound_names(fn.body).get(t.value, [])) != 1
    ):
        return None
    line = ctx.span(p)[0]
    reads = [r for r in name_nodes(fn.body, t.value) if r is not t]
    if not reads or any(ctx.span(r)[0] <= line or ctx.function(r) is not fn for r in reads):
        return None
    return stmt, reads


def _count_changes(
    ctx: FixContext, wrapper: cst.BaseExpression, new: cst.BaseExpression
) -> list[tuple[cst.CSTNode, cst.CSTNode]] | None:
    """The changes that put the count ``new`` in place of ``wrapper``, its uses made tensor
    arithmetic; None when a use needs a Python number."""
    uses = _uses(ctx, wrapper)
    if not uses:
        return None
    extra: list[tuple[cst.CSTNode, Callable[[cst.BaseExpression], cst.BaseExpression]]] = []
    for u in uses:
        ok = _tensor_use(ctx, u)
        if ok is None:
            return None
        if isinstance(ok, tuple):
            extra.append(ok)
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    inside = False
    for n, build in extra:
        arg = n.args[0].value  # type: ignore[attr-defined]
        inside |= arg is wrapper  # `max(len(nz), 1)`: the builtin's change holds the count
        e = build(new if arg is wrapper else arg)
        changes.append((n, e.with_changes(lpar=n.lpar, rpar=n.rpar)))  # type: ignore[attr-defined]
    if not inside:
        if isinstance(new, cst.BinaryOperation) and not isinstance(
            ctx.parent(wrapper), (cst.Assign, cst.Arg)
        ):
            new = paren(new)  # `len(classes) * 2`: the count's sum stays one operand
        changes.append(
            (
                wrapper,
                new.with_changes(lpar=[*wrapper.lpar, *new.lpar], rpar=[*new.rpar, *wrapper.rpar]),
            )
        )
    return changes
