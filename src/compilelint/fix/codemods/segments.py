"""Split sizes read with ``.tolist()`` whose pieces are only reduced: segment reductions.

A packed batch split into its samples by counts the data holds, each piece reduced over the
split dimension, the results stacked (per-utterance mean pooling over packed frames, a graph
readout over DGL-style node counts, per-segment sums)::

    pooled = torch.stack([u.mean(dim=0) for u in h.split(counts.tolist())])

    feats = []
    for g in torch.split(h, counts.tolist()):
        feats.append(g.sum(0))
    out = torch.stack(feats)

``.tolist()`` breaks the graph (the sizes are the data's), and ``torch.split`` takes no tensor
of sizes. The stacked result has one row per count, a static shape: each row is the reduction
of the rows of ``h`` its segment holds, which is a segment reduction over the segment ids
``repeat_interleave(arange(n), counts, output_size=h.shape[0])`` (``output_size`` keeps that
static: ``split`` requires the counts to sum to ``h.shape[0]``)::

    seg = torch.repeat_interleave(torch.arange(counts.shape[0], device=counts.device), counts,
                                  output_size=h.shape[0])
    pooled = h.new_zeros((counts.shape[0],) + h.shape[1:]).index_add_(0, seg, h)
             / counts.to(h.dtype).reshape((-1,) + (1,) * (h.dim() - 1))   # mean only

The same rows are summed (in another order: equal up to float rounding) and the gradient of
each row of ``h`` is its segment's. ``amax``/``amin`` become ``index_reduce_(0, seg, h, "amax",
include_self=False)``, which splits the gradient between tied elements as ``amax`` does
(``max(0).values`` sends it to one: not rewritten; an empty piece raised, here it gives 0).
Applied only to ``sum``/``mean``/``amax``/``amin`` over the split dimension 0 of the piece
itself (``u.sum(0)``, ``u.mean(dim=0)``, ``torch.sum(u, 0)``), stacked along 0 (or kept with
``keepdim=True`` and concatenated with ``torch.cat``), the sizes and the pieces inline or bound
to a name read once, and to the list built by a loop whose body only appends that reduction
to a list that is ``[]`` just before and read once after, by ``torch.stack`` (``torch.cat``).
A piece used otherwise (a module applied per piece, ``max(0).values``, a piece returned) keeps
the proposal of ``capture_scalar_outputs``. An empty piece's mean is NaN in both (0 / 0).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.appends import filled_list, sole_append
from compilelint.fix.codemods.base import all_nodes, atom, bound_names, name_nodes, template
from compilelint.fix.codemods.tolist_uses import split_of
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

_REDUCTIONS = ("sum", "mean", "amax", "amin")
_OP = {"sum": "index_add_", "mean": "index_add_", "amax": "index_reduce_", "amin": "index_reduce_"}


def segment_reduction(ctx: FixContext, tolist: cst.Call) -> Rewrite | None:
    """The rewrite of the split whose sizes are ``tolist`` (directly, or through a name bound to
    it and read once) when its pieces (directly, or through a name bound to them and read once)
    are only reduced and stacked, or None."""
    fn = ctx.function(tolist)
    if fn is None or not isinstance(tolist.func, cst.Attribute):
        return None
    counts = tolist.func.value
    gone: list[cst.BaseStatement] = []
    split = split_of(ctx, tolist)
    if split is None:
        named = _named(ctx, fn, tolist)
        if named is None:
            return None
        split = split_of(ctx, named[1])
        if split is None or not _stable(fn, counts):
            return None
        gone.append(named[0])
    src = _split_source(ctx, split)
    if src is None:
        return None
    pieces: cst.CSTNode = split
    chunks = _named(ctx, fn, split)
    if chunks is not None:
        pieces = chunks[1]
    use = _pieces_use(ctx, fn, pieces)
    if use is None:
        return None
    kind, stack, loop = use
    rows = _mask_rows(ctx, fn, src, kind)
    if rows is not None:
        pre, total = _masked_total(ctx, fn, rows[0], rows[1], counts, kind)
        if rows[2] is not None:
            gone.append(rows[2])
    else:
        pre, total = _total(ctx, fn, src, counts, kind)
    changes: list[tuple[cst.CSTNode, object]] = [(g, cst.RemoveFromParent()) for g in gone]
    if loop is not None:
        # ``L = []`` + the loop become ``L = <total>`` (at the split), ``torch.stack(L)`` -> L
        lst, empty = loop[1], loop[2]
        res = cst.Name(lst)
        changes.append((empty, cst.RemoveFromParent()))
        changes.append((stack, res.with_changes(lpar=stack.lpar, rpar=stack.rpar)))
        at = chunks[0] if chunks is not None else loop[0]
        if chunks is not None:
            changes.append((loop[0], cst.RemoveFromParent()))
        changes.append((at, cst.FlattenSentinel([*pre, _assign(lst, total)])))
    elif chunks is not None:
        name = ctx.fresh_name(f"{_target(chunks[0])}_{kind}")
        changes.append((chunks[0], cst.FlattenSentinel([*pre, _assign(name, total)])))
        changes.append((stack, cst.Name(name).with_changes(lpar=stack.lpar, rpar=stack.rpar)))
    else:
        anchor = ctx.statement(stack)
        if anchor is None:
            return None
        stmt = _swap_node(anchor, stack, total.with_changes(lpar=stack.lpar, rpar=stack.rpar))
        changes.append((anchor, cst.FlattenSentinel([*pre, stmt])))
    if rows is not None:
        return Rewrite(
            title=f"each piece (one row of the mask `{ctx.code(rows[1]).strip()}`) "
            + ("summed" if kind == "sum" else "averaged")
            + " "
            "with the mask, without selecting (`torch.where(m, x, 0).sum(1)`): one row per "
            "count, a static shape, no `.tolist()`; the sizes are checked to be the mask's row "
            "counts (`torch._assert_async`)",
            changes=changes,  # type: ignore[arg-type]
            imports=("torch",),
        )
    return Rewrite(
        title=(
            f"each piece's {kind} as one segment {kind} (`{_OP[kind]}` over segment ids from "
            "`repeat_interleave(..., output_size=)`): one row per count, a static shape, no "
            "`.tolist()`"
        ),
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _total(
    ctx: FixContext,
    fn: cst.FunctionDef,
    src: cst.BaseExpression,
    counts: cst.BaseExpression,
    kind: str,
) -> tuple[list[cst.BaseStatement], cst.BaseExpression]:
    """The statements binding the segment ids (and the operands that are not names), and the
    segment reduction."""
    t = ctx.torch()
    pre: list[cst.BaseStatement] = []
    src, counts = _bind(ctx, fn, src, "rows", pre), _bind(ctx, fn, counts, "counts", pre)
    seg = ctx.fresh_name("segment_ids")
    pre.append(
        _fill(
            cst.parse_statement(
                f"{seg} = {t}.repeat_interleave({t}.arange(__c__.shape[0], device=__c__.device), "
                f"__c__, output_size=__h__.shape[0])\n"
            ),
            h=src,
            c=counts,
        )
    )
    if kind in ("amax", "amin"):
        # include_self=False: the zeros are not compared; the gradient is split between tied
        # elements, as amax/amin split it (an empty piece raised; here it gives 0)
        total = template(
            f"__h__.new_zeros((__c__.shape[0],) + __h__.shape[1:]).index_reduce_(0, {seg}, "
            f'__h__, "{kind}", include_self=False)',
            h=src,
            c=counts,
        )
    else:
        total = template(
            f"__h__.new_zeros((__c__.shape[0],) + __h__.shape[1:]).index_add_(0, {seg}, __h__)",
            h=src,
            c=counts,
        )
    if kind == "mean":
        total = template(
            "__s__ / __c__.to(__h__.dtype).reshape((-1,) + (1,) * (__h__.dim() - 1))",
            s=total,
            c=counts,
            h=src,
        )
    return pre, total


def _mask_rows(
    ctx: FixContext, fn: cst.FunctionDef, src: cst.BaseExpression, kind: str
) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.SimpleStatementLine | None] | None:
    """``(x, m, the selection's line or None)`` when the split tensor is the selection
    ``x[m]`` (a boolean mask: a comparison or ``.bool()``), inline or through a name bound once
    to it and read only by the split (the line then goes), ``x`` and the names of ``m`` not
    bound again after it; only for sums and means. None otherwise."""
    if kind not in ("sum", "mean"):
        return None
    line: cst.SimpleStatementLine | None = None
    sel = src
    if isinstance(src, cst.Name):
        named = None
        for b in bound_names(fn.body).get(src.value, []):
            a = ctx.parent(b)
            st = ctx.parent(a) if isinstance(a, cst.Assign) else None
            if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
                named = (st, a.value)  # type: ignore[union-attr]
        if named is None or len(bound_names(fn.body).get(src.value, [])) != 1:
            return None
        if len(name_nodes(fn.body, src.value, reads_only=True)) != 1:
            return None
        line, sel = named
    if not (
        isinstance(sel, cst.Subscript)
        and len(sel.slice) == 1
        and isinstance(sel.slice[0].slice, cst.Index)
        and isinstance(sel.value, (cst.Name, cst.Attribute))
    ):
        return None
    m = sel.slice[0].slice.value
    is_bool = isinstance(m, cst.Comparison) or (
        isinstance(m, cst.Call)
        and isinstance(m.func, cst.Attribute)
        and m.func.attr.value == "bool"
        and not m.args
    )
    if not is_bool or any(isinstance(n, cst.Call) and n is not m for n in all_nodes(m)):
        return None
    at = ctx.span(sel)[0]
    used = {n.value for n in all_nodes(m) if isinstance(n, cst.Name)} | {
        n.value for n in all_nodes(sel.value) if isinstance(n, cst.Name)
    }
    bound = bound_names(fn.body)
    if any(ctx.span(b)[0] > at for u in used - {"self"} for b in bound.get(u, [])):
        return None
    return sel.value, m, line


def _masked_total(
    ctx: FixContext,
    fn: cst.FunctionDef,
    x: cst.BaseExpression,
    m: cst.BaseExpression,
    counts: cst.BaseExpression,
    kind: str,
) -> tuple[list[cst.BaseStatement], cst.BaseExpression]:
    """The segment sums of ``x[m]`` split by ``counts``: ``x[m]`` lists the selected rows in
    row-major order, so when the split sizes are the counts of the mask's rows (``m``
    reshaped to one row per count: ``[B, T]`` for ``B`` counts; a 1-D mask and a 0-d count
    is one row, one piece) each piece is one row of the mask, and its sum is the masked sum
    of that row: ``torch.where(m, x, 0).sum(1)``, no selection, no segment ids. The sizes
    equal the mask's row counts wherever the split worked on the rows (an ``attention_mask``
    of zeros and ones); ``torch._assert_async`` checks it in the graph, so a mask of other
    values fails loudly instead of giving other sums."""
    t = ctx.torch()
    pre: list[cst.BaseStatement] = []
    counts = _bind(ctx, fn, counts, "counts", pre)
    rows = ctx.fresh_name("rows_mask")
    # the mask's rank (`.bool()` keeps it)
    rank = m.func.value if isinstance(m, cst.Call) and isinstance(m.func, cst.Attribute) else m
    pre.append(
        _fill(
            cst.parse_statement(f"{rows} = __m__.reshape(__c__.numel(), -1)\n"),
            m=atom(m),
            c=counts,
        )
    )
    pre.append(
        _fill(
            cst.parse_statement(
                f"{t}._assert_async(({rows}.sum(1) == __c__.reshape(-1)).all(), "
                '"the split sizes are the counts of the mask\'s rows")\n'
            ),
            c=counts,
        )
    )
    total = template(
        f"{t}.where({rows}.reshape({rows}.shape + (1,) * (__x__.dim() - __m__.dim())), "
        f"__x__.reshape({rows}.shape + __x__.shape[__m__.dim():]), 0).sum(1)",
        x=x,
        m=atom(rank),
    )
    if kind == "mean":
        total = template(
            "__s__ / __c__.to(__x__.dtype).reshape((-1,) + (1,) * (__x__.dim() - __m__.dim()))",
            s=total,
            c=counts,
            x=x,
            m=atom(rank),
        )
    return pre, total


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _target(stmt: cst.BaseStatement) -> str:
    a = stmt.body[0]  # type: ignore[attr-defined]
    return a.targets[0].target.value  # type: ignore[no-any-return]


def _named(
    ctx: FixContext, fn: cst.FunctionDef, value: cst.CSTNode
) -> tuple[cst.SimpleStatementLine, cst.Name] | None:
    """(``name = value``, the one read of ``name``) when ``value`` is the whole value of an
    assignment to a name bound only there and read once, else None."""
    a = ctx.parent(value)
    st = ctx.parent(a) if isinstance(a, cst.Assign) else None
    if not (
        isinstance(a, cst.Assign)
        and a.value is value
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
        and isinstance(st, cst.SimpleStatementLine)
        and len(st.body) == 1
    ):
        return None
    name = a.targets[0].target.value
    if len(bound_names(fn).get(name, [])) != 1:
        return None
    reads = name_nodes(fn.body, name, reads_only=True)
    if len(reads) != 1:
        return None
    return st, reads[0]


def _stable(fn: cst.FunctionDef, e: cst.BaseExpression) -> bool:
    """Does ``e`` read the same value wherever it is read in ``fn``: no call, every name it
    reads bound at most once (a parameter or one assignment)?"""
    if any(isinstance(n, cst.Call) for n in all_nodes(e)):
        return False
    bound = bound_names(fn.body)
    params = {p.name.value for p in _params(fn)}
    return all(len(bound.get(n.value, [])) + (n.value in params) <= 1 for n in name_nodes(e))


def _params(fn: cst.FunctionDef) -> list[cst.Param]:
    ps = fn.params
    star = [ps.star_arg] if isinstance(ps.star_arg, cst.Param) else []
    kw = [ps.star_kwarg] if ps.star_kwarg is not None else []
    return [*ps.posonly_params, *ps.params, *star, *ps.kwonly_params, *kw]


def _split_source(ctx: FixContext, split: cst.Call) -> cst.BaseExpression | None:
    """The tensor ``split`` splits along dimension 0, or None (another dimension, or not
    known)."""
    f = split.func
    assert isinstance(f, cst.Attribute)
    pos = [a for a in split.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in split.args if a.keyword is not None}
    if any(a.star for a in split.args):
        return None
    is_torch = isinstance(f.value, cst.Name) and f.value.value == ctx.torch()
    if is_torch:
        if not pos:
            return None
        src, rest = pos[0].value, pos[2:]
    else:
        src, rest = f.value, pos[1:]
    dim = kw.get("dim", rest[0].value if rest else None)
    if dim is not None and not (isinstance(dim, cst.Integer) and dim.value == "0"):
        return None
    if set(kw) - {"dim", "split_size_or_sections", "split_size"}:
        return None
    return src


def _reduced(ctx: FixContext, e: cst.BaseExpression, piece: str) -> tuple[str, bool] | None:
    """(reduction, keepdim) when ``e`` reduces the Name ``piece`` over dimension 0 with
    ``sum``/``mean``/``amax``/``amin`` (``keepdim=True`` allowed), else None."""
    if not isinstance(e, cst.Call) or not isinstance(e.func, cst.Attribute):
        return None
    f = e.func
    name = f.attr.value
    if name not in _REDUCTIONS or any(a.star for a in e.args):
        return None
    args = list(e.args)
    if isinstance(f.value, cst.Name) and f.value.value == piece:
        pass
    elif (
        isinstance(f.value, cst.Name)
        and f.value.value == ctx.torch()
        and args
        and args[0].keyword is None
        and isinstance(args[0].value, cst.Name)
        and args[0].value.value == piece
    ):
        args = args[1:]
    else:
        return None
    keep = False
    if args and args[-1].keyword is not None and args[-1].keyword.value == "keepdim":
        v = args[-1].value
        if not (isinstance(v, cst.Name) and v.value in ("True", "False")):
            return None
        keep = v.value == "True"
        args = args[:-1]
    if len(args) != 1:
        return None
    a = args[0]
    if a.keyword is not None and a.keyword.value != "dim":
        return None
    if not (isinstance(a.value, cst.Integer) and a.value.value == "0"):
        return None
    return name, keep


def _stacked(ctx: FixContext, e: cst.CSTNode, keep: bool = False) -> cst.Call | None:
    """The ``torch.stack(e)`` / ``torch.stack(e, dim=0)`` call whose list ``e`` is (with
    ``keep``, pieces reduced with ``keepdim=True``: ``torch.cat``), or None."""
    arg = ctx.parent(e)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == ("cat" if keep else "stack")
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == ctx.torch()
        and call.args
        and call.args[0] is arg
        and arg.keyword is None
    ):
        return None
    for a in call.args[1:]:
        if not (
            (a.keyword is None or a.keyword.value == "dim")
            and isinstance(a.value, cst.Integer)
            and a.value.value == "0"
        ):
            return None
    return call


def _pieces_use(
    ctx: FixContext, fn: cst.FunctionDef, pieces: cst.CSTNode
) -> tuple[str, cst.Call, tuple[cst.For, str, cst.BaseStatement] | None] | None:
    """(reduction, the ``torch.stack`` call, for the loop form (loop, list name, ``L = []``))
    when the pieces ``pieces`` are only reduced and stacked."""
    parent = ctx.parent(pieces)
    # a comprehension: torch.stack([R(u) for u in PIECES])
    if isinstance(parent, cst.CompFor) and parent.iter is pieces:
        comp = ctx.parent(parent)
        if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or comp.for_in is not parent:
            return None
        if parent.ifs or parent.inner_for_in is not None or parent.asynchronous is not None:
            return None
        if not isinstance(parent.target, cst.Name):
            return None
        red = _reduced(ctx, comp.elt, parent.target.value)
        stack = _stacked(ctx, comp, red[1]) if red is not None else None
        if red is None or stack is None:
            return None
        return red[0], stack, None
    # a loop appending R(u) to a list made just before, read once by torch.stack(L)
    if isinstance(parent, cst.For) and parent.iter is pieces:
        loop = parent
        if loop.orelse is not None or not isinstance(loop.target, cst.Name):
            return None
        got = sole_append(loop)
        if got is None:
            return None
        call, lst = got
        red = _reduced(ctx, call.args[0].value, loop.target.value)
        if red is None:
            return None
        kind, keep = red
        filled = filled_list(ctx, fn, loop, lst)
        if filled is None:
            return None
        empty, read = filled
        stack = _stacked(ctx, read, keep)
        if stack is None or len(stack.args) != 1:
            return None
        return kind, stack, (loop, lst, empty)
    return None


def _pure(e: cst.BaseExpression) -> bool:
    """A name or an attribute of one (``h``, ``self.lengths``): reading it twice is reading it
    once."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _bind(
    ctx: FixContext,
    fn: cst.FunctionDef,
    e: cst.BaseExpression,
    base: str,
    pre: list[cst.BaseStatement],
) -> cst.BaseExpression:
    """``e`` itself when reading it again is safe, else a fresh name bound to it in ``pre``."""
    if _pure(e):
        return e.with_changes(lpar=[], rpar=[]) if isinstance(e, cst.Name) else e
    name = ctx.fresh_name(base)
    pre.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], e)]))
    return cst.Name(name)


def _fill(stmt: cst.BaseStatement, **nodes: cst.CSTNode) -> cst.BaseStatement:
    """``stmt`` with the placeholders ``__k__`` replaced by ``nodes[k]``."""

    class T(cst.CSTTransformer):
        def leave_Name(self, o: cst.Name, u: cst.Name) -> cst.BaseExpression:
            v = o.value
            if v.startswith("__") and v.endswith("__") and v[2:-2] in nodes:
                return nodes[v[2:-2]]  # type: ignore[return-value]
            return u

    return stmt.visit(T())  # type: ignore[return-value]


def _swap_node(tree: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.BaseStatement:
    """``tree`` with the node ``old`` (by identity) replaced by ``new``."""

    class T(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return new if o is old else u

    return tree.visit(T())  # type: ignore[return-value]
