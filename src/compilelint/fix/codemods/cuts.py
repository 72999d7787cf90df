"""Index cuts: a run of sort indices cut at a bound read from a tensor, used only to store
(``keep = order[0, :n]`` ... ``out[0, keep] = logits[0, keep]``), kept whole and masked.

The form (samplers' top-p / typical cuts, top-n proposals, top-k boosts)::

    n = max(int(last[0]) + 1, 1)          # a number read from a tensor (kept a 0-d tensor)
    keep = order[0, :n]                   # order: indices of a sort/argsort/topk
    out[0, keep] = logits[0, keep]        # or `= number`, `+= number`, `-=`, `*=`, `/=`

becomes::

    keep = order[0, :]
    keep_in = (torch.arange(keep.shape[0], device=keep.device) < n).view(...).expand_as(keep)
    hit = torch.zeros(out[0].shape[0], dtype=torch.long, device=keep.device).index_add(
        0, keep.flatten(), keep_in.flatten().long()) > 0
    out[0, :] = torch.where(hit.view(-1, *[1] * (out[0].dim() - 1)), logits[0, :], out[0, :])

Why the values are the same: the cut dimension is the first one the slice leaves (the indices
before it are integers, which drop theirs), so ``keep_in`` marks exactly the entries of the
uncut ``keep`` that the slice kept (``<``/``>=`` against ``arange`` clip the bound past either
end as slicing does; a negative bound is counted from the end with ``torch.where``). The store
writes, at every location ``e`` the cut names, a value that depends on ``e`` only (a number,
or the value read at the same location ``Y[0, e]``), so the result is: every location named by
a kept entry gets its value, every other keeps its own. ``hit`` is exactly "named by a kept
entry", counted with ``index_add`` so that an index that also appears among the cut-off
entries does not matter (no rank or distinctness of ``order`` is assumed). ``+=``/``*=``...
read and write the same location, so they are the same where-selected update. Sort, argsort
and topk indices are non-negative, so ``index_add`` sees the locations the store saw.
Gradients: ``torch.where`` passes the stored value's gradient at the hit locations and the old
value's elsewhere, as the store does.

Refused (no fix, with the statement), once the cut is of sort/argsort/topk indices: an
index before the slice that is not an integer literal, a step, a cut read anywhere but in
such a store or in its value at the same location, a value naming other tensors.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import ARITH_OPERATORS, bound_names, name_nodes, number_expr
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Replacement

_SORTS = frozenset({"sort", "argsort", "topk"})
_AUG = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
_AUG_OP = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
}

Changes = list[tuple[cst.CSTNode, Replacement]]


def _int_index(e: cst.BaseSlice) -> bool:
    if not isinstance(e, cst.Index) or e.star is not None:
        return False
    v = e.value
    if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
        v = v.expression
    return isinstance(v, cst.Integer)


def _sort_indices(ctx: FixContext, fn: cst.FunctionDef, name: str) -> bool:
    """Is ``name`` bound once, to the indices of a sort, argsort or topk (``_, i = x.sort()``,
    ``i = torch.argsort(x)``, ``i = x.topk(k).indices``, ``i = torch.sort(x)[1]``)?"""
    binders = bound_names(fn).get(name, [])
    if len(binders) != 1:
        return False
    b = binders[0]
    node: cst.CSTNode | None = b
    while node is not None and not isinstance(node, cst.Assign):
        node = ctx.parent(node)
    if not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return False
    value = node.value
    target = node.targets[0].target
    if isinstance(target, (cst.Tuple, cst.List)):
        elts = target.elements
        if not (len(elts) == 2 and isinstance(elts[1].value, cst.Name)):
            return False
        if elts[1].value.value != name:  # type: ignore[attr-defined]
            return False
        return _sort_call(value) in ("sort", "topk")
    if isinstance(value, cst.Attribute) and value.attr.value == "indices":
        return _sort_call(value.value) in ("sort", "topk")
    if (
        isinstance(value, cst.Subscript)
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Index)
        and isinstance(value.slice[0].slice.value, cst.Integer)
        and value.slice[0].slice.value.value == "1"
    ):
        return _sort_call(value.value) in ("sort", "topk")
    return _sort_call(value) == "argsort"


def _sort_call(e: cst.BaseExpression) -> str | None:
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
        name = e.func.attr.value
        return name if name in _SORTS else None
    return None


def index_cut(
    ctx: FixContext, read: cst.CSTNode, names: set[str]
) -> tuple[Changes, str] | NoFix | None:
    """``read`` (a read of a value kept a 0-d tensor) bounds the slice of such a cut: the
    changes (and a title), why not, or None when ``read`` does not bound a slice of sort
    indices."""
    sl = ctx.parent(read)
    if not isinstance(sl, cst.Slice) or read not in (sl.lower, sl.upper):
        return None
    el = ctx.parent(sl)
    sub = ctx.parent(el) if el is not None else None
    if not isinstance(sub, cst.Subscript) or not isinstance(el, cst.SubscriptElement):
        return None
    what = ctx.code(ctx.statement(sub) or sub).strip().splitlines()[0][:40]
    fn = ctx.function(sub)
    assign = ctx.parent(sub)
    line = ctx.parent(assign) if assign is not None else None
    if fn is None or not (
        isinstance(sub.value, cst.Name) and _sort_indices(ctx, fn, sub.value.value)
    ):
        return None  # not a cut of sort indices: CL113's mask proposal is the remedy
    if (
        sl.step is not None
        or sub.slice[-1] is not el
        or not all(_int_index(e.slice) for e in sub.slice[:-1])
        or not isinstance(sub.value, cst.Name)
        or not isinstance(assign, cst.Assign)
        or assign.value is not sub
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
        or not isinstance(line, cst.SimpleStatementLine)
        or len(line.body) != 1
    ):
        return NoFix(
            f"the value bounds the slice in `{what}`, not a cut `c = order[0, :n]` of sort "
            "indices (integer indices before the slice, no step, assigned to a name)"
        )
    if not _sort_indices(ctx, fn, sub.value.value):
        return None
    sibling: list[tuple[cst.CSTNode, Replacement]] = []
    for bound in (sl.lower, sl.upper):
        if bound is None or bound is read:
            continue
        ok = (isinstance(bound, cst.Integer)) or (
            isinstance(bound, cst.Name) and bound.value in names
        )
        if not ok and isinstance(bound, cst.Name):
            # `lo = int(w.min())`, `hi = int(w.max()) + 3` ... `idx[0, lo:hi]`: the other
            # bound is a second read, used only here; kept a 0-d tensor by the same fix
            got = _sibling_read(ctx, fn, bound.value, _read_roots(ctx, fn, read))
            if got is not None:
                sibling.append(got)
                ok = True
        if not ok:
            return NoFix(
                f"the other bound of the slice in `{what}` is neither a literal nor the value"
            )
    cut = assign.targets[0].target.value
    if len(bound_names(fn).get(cut, [])) != 1:
        return NoFix(f"`{cut}` is assigned more than once")
    th = ctx.torch()
    stores: dict[int, cst.BaseSmallStatement] = {}
    seen: set[int] = set()
    for r in name_nodes(fn.body, cut, reads_only=True):
        store = _store_of(ctx, r, cut)
        if isinstance(store, NoFix):
            return store
        stores[id(store)] = store
        seen.add(id(r))
    if not stores:
        return NoFix(f"`{cut}` is not used")
    keep = ctx.fresh_name(f"{cut}_in", reserve=False)
    changes: Changes = []
    # the uncut indices and the mask of the entries the slice kept
    whole = sub.with_changes(
        slice=[*sub.slice[:-1], el.with_changes(slice=cst.Slice(lower=None, upper=None))]
    )
    pos = f"{th}.arange({cut}.shape[0], device={cut}.device)"

    def bound_text(b: cst.BaseExpression) -> str:
        t = ctx.code(b).strip()
        if isinstance(b, cst.Integer):
            return t
        return f"{th}.where({t} < 0, {t} + {cut}.shape[0], {t})"

    conds = []
    if sl.lower is not None:
        conds.append(f"({pos} >= {bound_text(sl.lower)})")
    if sl.upper is not None:
        conds.append(f"({pos} < {bound_text(sl.upper)})")
    if len(conds) == 1:
        conds = [conds[0][1:-1]]
    inside = (
        " & ".join(conds)
        if conds
        else f"{th}.ones({cut}.shape[0], dtype={th}.bool, device={cut}.device)"
    )
    keep_line = cst.parse_statement(
        f"{keep} = ({inside}).view(-1, *[1] * ({cut}.dim() - 1)).expand_as({cut})\n"
    )
    changes.append(
        (
            line,
            cst.FlattenSentinel(
                [line.with_changes(body=[assign.with_changes(value=whole)]), keep_line]
            ),
        )
    )
    for st in stores.values():
        masked = _masked_store(ctx, st, cut, keep, th)
        if isinstance(masked, NoFix):
            return masked
        changes.append(masked)
    changes.extend(sibling)
    title = (
        f"keep the cut `{cut}` whole and mask its stores: the entries the slice cut off write "
        "back the values they would have left"
    )
    return changes, title


def _root(e: cst.BaseExpression) -> str | None:
    """``w`` of ``w.max()``, ``w[0].abs().sum()``: the name a chain of calls, attributes and
    subscripts starts from."""
    while True:
        if isinstance(e, cst.Name):
            return e.value
        if isinstance(e, cst.Call):
            e = e.func
        elif isinstance(e, (cst.Attribute, cst.Subscript)):
            e = e.value
        else:
            return None


def _read_roots(ctx: FixContext, fn: cst.FunctionDef, read: cst.CSTNode) -> set[str]:
    """The names whose values the bound ``read`` (a name) was read from as a tensor
    (``lo = int(w.min())`` -> ``{"w"}``): the finding being fixed says that read is of a
    tensor, so another read from the same name through a method chain is one too."""
    if not isinstance(read, cst.Name):
        return set()
    roots: set[str] = set()
    for b in bound_names(fn).get(read.value, []):
        node: cst.CSTNode | None = b
        while node is not None and not isinstance(node, cst.Assign):
            node = ctx.parent(node)
        if not isinstance(node, cst.Assign):
            continue
        for n in _calls(node.value):
            if isinstance(n.func, cst.Name) and n.func.value in ("int", "float") and n.args:
                r = _root(n.args[0].value)
            elif isinstance(n.func, cst.Attribute) and n.func.attr.value == "item":
                r = _root(n.func.value)
            else:
                continue
            if r is not None:
                roots.add(r)
    return roots


def _calls(e: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    e.visit(V())
    return found


def _sibling_read(
    ctx: FixContext, fn: cst.FunctionDef, name: str, roots: set[str]
) -> tuple[cst.CSTNode, Replacement] | None:
    """``name = int(t) + 3`` (``float(t)``, ``t.item()``; arithmetic with number literals),
    bound once and read once (the slice bound): the read kept a 0-d tensor, as CL102/CL103
    keep it (``int`` -> ``torch.trunc``, the gradient cut with ``.detach()``)."""
    binders = bound_names(fn).get(name, [])
    if len(binders) != 1 or len(name_nodes(fn.body, name, reads_only=True)) != 1:
        return None
    node: cst.CSTNode | None = binders[0]
    while node is not None and not isinstance(node, cst.Assign):
        node = ctx.parent(node)
    if not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return None
    reads: list[cst.Call] = []

    def walk(e: cst.BaseExpression) -> bool:
        if isinstance(e, (cst.Integer, cst.Float)):
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            return walk(e.expression)
        if isinstance(e, cst.BinaryOperation) and isinstance(
            e.operator, (cst.Add, cst.Subtract, cst.Multiply)
        ):
            return walk(e.left) and walk(e.right)
        if isinstance(e, cst.Call) and not e.lpar:
            f = e.func
            if isinstance(f, cst.Name) and f.value in ("int", "float") and len(e.args) == 1:
                arg = e.args[0].value
                chain = isinstance(arg, cst.Call) and _root(arg) in roots
                if e.args[0].keyword is None and (ctx.is_tensor(arg) or chain):
                    reads.append(e)
                    return True
            if isinstance(f, cst.Attribute) and f.attr.value == "item" and not e.args:
                reads.append(e)
                return True
        return False

    if not walk(node.value) or len(reads) != 1:
        return None
    call = reads[0]
    th = ctx.torch()
    if isinstance(call.func, cst.Name):
        inner = ctx.code(call.args[0].value).strip()
        text = (
            f"{th}.trunc(({inner}).detach())" if call.func.value == "int" else f"({inner}).detach()"
        )
    else:
        text = f"({ctx.code(call.func.value).strip()}).detach()"  # type: ignore[attr-defined]
    return call, cst.parse_expression(text)


def _prefix(sub: cst.Subscript, ctx: FixContext) -> tuple[str, ...]:
    return tuple(ctx.code(e.slice).strip() for e in sub.slice[:-1])


def _store_of(ctx: FixContext, r: cst.CSTNode, cut: str) -> cst.BaseSmallStatement | NoFix:
    """The store ``X[i.., cut] = V`` (or ``op=``) that ``r`` (a read of ``cut``) belongs to:
    as its target's last index, or inside ``V`` as ``Y[i.., cut]`` with the same integers."""
    what = ctx.code(ctx.statement(r) or r).strip().splitlines()[0][:40]
    idx = ctx.parent(r)
    el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    if not (
        isinstance(sub, cst.Subscript)
        and sub.slice[-1] is el
        and all(_int_index(e.slice) for e in sub.slice[:-1])
        and ctx.is_tensor(sub.value)
    ):
        return NoFix(f"`{cut}` is also used in `{what}`, not only as the last index of a store")
    node: cst.CSTNode = sub
    while True:
        p = ctx.parent(node)
        if isinstance(p, cst.AssignTarget):
            st = ctx.parent(p)
            break
        if isinstance(p, cst.AugAssign) and p.target is node and isinstance(p.operator, _AUG):
            st = p
            break
        if isinstance(p, (cst.Assign, cst.AugAssign)):
            st = p
            break
        if p is None or isinstance(p, cst.BaseSmallStatement):
            return NoFix(f"`{cut}` is also used in `{what}`, not only in a store")
        node = p
    if isinstance(st, cst.Assign) and len(st.targets) != 1:
        return NoFix(f"`{what}` assigns more than one target")
    target = st.targets[0].target if isinstance(st, cst.Assign) else st.target  # type: ignore[union-attr]
    if not (
        isinstance(target, cst.Subscript)
        and isinstance(target.slice[-1].slice, cst.Index)
        and isinstance(target.slice[-1].slice.value, cst.Name)
        and target.slice[-1].slice.value.value == cut
        and all(_int_index(e.slice) for e in target.slice[:-1])
    ):
        return NoFix(f"`{cut}` is also used in `{what}`, not only as the last index of a store")
    return st  # type: ignore[return-value]


def _full_value(
    ctx: FixContext, v: cst.BaseExpression, cut: str, prefix: tuple[str, ...]
) -> cst.BaseExpression | None:
    """``V`` with each ``Y[j.., cut]`` (integers before the cut, as in the store's target)
    read whole ``Y[j.., :]``, when ``V`` depends on the location only (numbers, such reads,
    arithmetic); else None. The location is the first dimension ``Y[j.., :]`` leaves, as it
    is of the target ``X[i.., :]``: the whole reads line up with the target as the cut ones
    did (broadcast from the right alike)."""
    if number_expr(v) or ctx.is_number(v):
        return v
    if (
        isinstance(v, cst.Call)
        and isinstance(v.func, cst.Name)
        and v.func.value == "float"
        and len(v.args) == 1
        and isinstance(v.args[0].value, cst.SimpleString)
    ):
        return v  # float("-inf")
    if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, (cst.Minus, cst.Plus)):
        inner = _full_value(ctx, v.expression, cut, prefix)
        return None if inner is None else v.with_changes(expression=inner)
    if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, ARITH_OPERATORS):
        a = _full_value(ctx, v.left, cut, prefix)
        b = _full_value(ctx, v.right, cut, prefix)
        return None if a is None or b is None else v.with_changes(left=a, right=b)
    if (
        isinstance(v, cst.Subscript)
        and isinstance(v.slice[-1].slice, cst.Index)
        and isinstance(v.slice[-1].slice.value, cst.Name)
        and v.slice[-1].slice.value.value == cut
        and all(_int_index(e.slice) for e in v.slice[:-1])
        and ctx.is_tensor(v.value)
    ):
        last = v.slice[-1].with_changes(slice=cst.Slice(lower=None, upper=None))
        return v.with_changes(slice=[*v.slice[:-1], last])
    return None


def _masked_store(
    ctx: FixContext, st: cst.BaseSmallStatement, cut: str, keep: str, th: str
) -> tuple[cst.CSTNode, Replacement] | NoFix:
    line = ctx.parent(st)
    what = ctx.code(st).strip().splitlines()[0][:40]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return NoFix(f"`{what}` shares its line with other statements")
    target = st.targets[0].target if isinstance(st, cst.Assign) else st.target  # type: ignore[attr-defined, union-attr]
    assert isinstance(target, cst.Subscript)
    prefix = _prefix(target, ctx)
    value = _full_value(ctx, st.value, cut, prefix)  # type: ignore[attr-defined]
    if value is None:
        return NoFix(
            f"the value stored in `{what}` is not known to depend on the location only "
            "(numbers, and reads at the same indices)"
        )
    x = ctx.code(target.value).strip()
    rows = f"{x}[{', '.join(prefix)}]" if prefix else x
    whole = f"{x}[{', '.join([*prefix, ':'])}]"
    hit = ctx.fresh_name(f"{cut}_hit", reserve=False)
    val = ctx.code(value).strip()
    if isinstance(st, cst.AugAssign):
        val = f"{whole} {_AUG_OP[type(st.operator)]} ({val})"
    hit_line = cst.parse_statement(
        f"{hit} = {th}.zeros({rows}.shape[0], dtype={th}.long, device={cut}.device)"
        f".index_add(0, {cut}.flatten(), {keep}.flatten().long()) > 0\n"
    )
    store = cst.parse_statement(
        f"{whole} = {th}.where({hit}.view(-1, *[1] * ({rows}.dim() - 1)), {val}, {whole})\n"
    )
    return line, cst.FlattenSentinel(
        [hit_line.with_changes(leading_lines=line.leading_lines), store]
    )
