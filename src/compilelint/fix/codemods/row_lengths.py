"""Lengths read one at a time in a loop over the batch (CL102 ``int(L[i])``, CL103
``L[i].item()``), where one masked tensor expression does the loop's work.

A padded batch carries one length per row, a 1-d int tensor ``L``. Code written a row at a time
reads each length back as a Python int and slices the rows by it; every read breaks the graph.
When the loop runs over the batch (``for i in range(X.size(0))``, ``X.shape[0]``, ``len(X)``,
or a name bound once to one of them) and each statement of its body is one of the forms below,
the loop becomes straight-line tensor code (``valid = torch.arange(T) < n_valid[:, None]``, the
steps a slice ``[:n]`` keeps)::

    for i in range(B):
        n = int(L[i])                      # or L[i].item(), int(L[i].item()); n = ... - 1
        BUF[i, :n] = c                     -> BUF.masked_fill_(valid, c)
        BUF[i, n:] = c                     -> BUF.masked_fill_(~valid, c)
        BUF[i, :n] = E                     -> BUF.copy_(torch.where(valid, E', BUF))
        BUF[i] = E.sum(0)                  -> BUF.copy_(torch.where(valid, E', 0).sum(1))
        v = E                              -> v = E'
        acc = acc + E.sum()                -> acc = acc + torch.where(valid, E', 0).sum()
        acc += E.mean()                    -> acc += (<each row's masked sum> / <its count>).sum()
        rows.append(E.mean(0))             -> rows = <each row's masked sum> / n_valid  (and
                                              torch.stack(rows) -> rows, ``rows = []`` goes)
        rows.append(H[i, n])               -> rows = H[torch.arange(H.shape[0]), L - 1 ...]

``E`` is a row expression: slices ``Y[i, :n]`` (``Y`` not bound in the loop), names bound in
the loop by ``v = E``, numbers and names not bound in the loop, combined by ``+ - *``, ``/`` by
something that is not a row, ``**`` by an int literal ``>= 1``, unary ``-``, and the functions
and methods in ``_FUNCS``/``_METHODS`` (elementwise, finite derivative at every finite
input); ``E'`` is ``E`` with each ``Y[i, :n]`` read as ``Y``. Why it is the same: a slice
``[:n]`` keeps ``n_valid = where(n < 0, n + T, n).clamp(0, T)`` steps, those where ``valid``
holds; an elementwise ``E`` computed on all the steps and masked has the slices' values at the
valid steps, and ``torch.where`` sends no gradient to the others (the functions allowed have a
finite derivative there, so a zero stays zero: no ``log``/``sqrt``/division by a row, whose
derivative at padding may be infinite and give NaN); a sum over the valid steps is the slice's
sum (another order: float rounding), a mean that sum over the count (``0 / 0``, NaN, for an
empty slice in both); an index ``H[i, n]`` is ``H``'s row gathered at ``n`` (``-1`` reads the
last step in both). The rows of each tensor are taken to be one per length (the loop runs over
``B``, the same rows): the verifier compares the outputs on the spec's inputs.

A buffer sized by a number read from the data (``out = x.new_zeros(B, int(L.max()), D)``) has
no static shape: filled with the masked form at the input's ``T`` steps it holds the same rows
and zeros past each length, but its shape is ``(B, T, D)``, not ``(B, max(L), D)``. Where it is
returned or read otherwise, the patch is a proposal with that reason (the caller must accept the
``T`` steps, or cut them after the compiled call).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.fix.codemods.appends import append_call, filled_list
from compilelint.fix.codemods.base import all_nodes, atom, bound_names, name_nodes, template
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite

# elementwise, with a finite derivative at every finite input
_METHODS = frozenset(
    "abs neg exp tanh sigmoid relu float double half detach clone square sin cos clamp "
    "clamp_min clamp_max".split()
)
_FUNCS = frozenset(
    "abs neg exp tanh sigmoid relu square sin cos clamp gelu silu softplus leaky_relu elu".split()
)
_TORCH_MODULES = {"torch", "F", "functional", "nn"}


@dataclass
class _Plan:
    """What the loop's body becomes."""

    lens: cst.BaseExpression  # the lengths tensor L
    i: str  # the loop's index
    ns: dict[str, cst.BaseExpression] = field(default_factory=dict)  # n -> L (or L - 1 ...)
    reads: list[cst.CSTNode] = field(default_factory=list)  # the reads of L[i]
    bases: dict[str, cst.BaseExpression] = field(default_factory=dict)  # code -> sliced tensor
    rowvars: set[str] = field(default_factory=set)
    rowbase: dict[str, tuple[cst.BaseExpression, str]] = field(default_factory=dict)
    out: list[cst.BaseStatement] = field(default_factory=list)
    changes: list[tuple[cst.CSTNode, object]] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    sized: list[tuple[str, cst.BaseExpression]] = field(default_factory=list)  # (buffer, T)


class _Refuse(Exception):
    pass


def length_read(e: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
    """(``L``, ``i``) for ``int(L[i])``, ``L[i].item()`` or ``int(L[i].item())``."""
    if not isinstance(e, cst.Call):
        return None
    inner: cst.BaseExpression | None = None
    if isinstance(e.func, cst.Name) and e.func.value == "int" and len(e.args) == 1:
        a = e.args[0]
        if a.keyword is not None or a.star != "":
            return None
        inner = a.value
        if isinstance(inner, cst.Call):
            got = _item_of(inner)
            if got is None:
                return None
            inner = got
    else:
        inner = _item_of(e)
    if not (isinstance(inner, cst.Subscript) and len(inner.slice) == 1):
        return None
    idx = inner.slice[0].slice
    if not (isinstance(idx, cst.Index) and isinstance(idx.value, cst.Name)):
        return None
    if not _plain(inner.value):
        return None
    return inner.value, idx.value.value


def bare_read(e: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
    """(``L``, ``i``) for ``L[i]`` itself, a 0-d tensor that a slice reads with ``__index__``
    (CL113): a length only where it bounds a slice (see ``_bare_lengths``)."""
    if not (isinstance(e, cst.Subscript) and len(e.slice) == 1 and _plain(e.value)):
        return None
    idx = e.slice[0].slice
    if not (isinstance(idx, cst.Index) and isinstance(idx.value, cst.Name)):
        return None
    return e.value, idx.value.value


def _bare_lengths(loop: cst.For, i: str) -> list[cst.Subscript]:
    """The reads ``L[i]`` that bound a slice in the loop, inline or through ``n = L[i]``."""
    bounds: list[cst.BaseExpression] = []

    class V(cst.CSTVisitor):
        def visit_Slice(self, n: cst.Slice) -> None:
            bounds.extend(b for b in (n.lower, n.upper) if b is not None)

    loop.body.visit(V())
    names = {b.value for b in bounds if isinstance(b, cst.Name)}
    out = [b for b in bounds if isinstance(b, cst.Subscript) and (bare_read(b) or ("", ""))[1] == i]
    for st in getattr(loop.body, "body", ()):
        small = st.body[0] if isinstance(st, cst.SimpleStatementLine) and st.body else None
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value in names
            and isinstance(small.value, cst.Subscript)
            and (bare_read(small.value) or ("", ""))[1] == i
        ):
            out.append(small.value)
    return out


def _item_of(e: cst.Call) -> cst.BaseExpression | None:
    if isinstance(e.func, cst.Attribute) and e.func.attr.value == "item" and not e.args:
        return e.func.value
    return None


def row_loop_fix(ctx: FixContext, origin: cst.CSTNode) -> Rewrite | Proposal | NoFix | None:
    """The rewrite (or proposal) of the loop over the batch that reads ``origin``, a length
    read one at a time, or the length bound of a buffer that loop fills; None when ``origin``
    is neither."""
    fn = ctx.function(origin)
    if fn is None:
        return None
    read: cst.CSTNode = origin
    par = ctx.parent(origin)
    if isinstance(par, cst.Arg):
        up = ctx.parent(par)
        if isinstance(up, cst.Call) and (length_read(up) or _max_read(up)) is not None:
            read = up
    got = length_read(read)
    if got is not None:
        loop = ctx.enclosing(read, cst.For)
        if (
            loop is None
            or ctx.function(loop) is not fn
            or not isinstance(loop.target, cst.Name)
            or loop.target.value != got[1]
            or not any(a is loop.body for a in ctx.ancestors(read))
        ):
            return None
        return _fix_loop(ctx, fn, loop)
    if isinstance(read, cst.Name) or bare_read(read) is not None:
        # a slice bound `n` (`n = L[i]`) or `L[i]` itself (CL113)
        loop = ctx.enclosing(read, cst.For)
        if (
            loop is None
            or ctx.function(loop) is not fn
            or not isinstance(loop.target, cst.Name)
            or not any(
                id(b) == id(read) or _bound_by(ctx, loop, read, b)
                for b in _bare_lengths(loop, loop.target.value)
            )
        ):
            return None
        return _fix_loop(ctx, fn, loop)
    # `int(L.max())` sizing a buffer that such a loop fills
    for loop in _loops(fn):
        prop = _fix_loop(ctx, fn, loop)
        if isinstance(prop, (Rewrite, Proposal)) and id(read) in getattr(prop, "_max_reads", ()):
            return prop
    return None


def _bound_by(ctx: FixContext, loop: cst.For, read: cst.CSTNode, value: cst.CSTNode) -> bool:
    """Is ``read`` the name ``n`` of ``n = value`` (a statement of the loop)?"""
    a = ctx.parent(value)
    return (
        isinstance(read, cst.Name)
        and isinstance(a, cst.Assign)
        and isinstance(a.targets[0].target, cst.Name)
        and a.targets[0].target.value == read.value
    )


def _loops(fn: cst.FunctionDef) -> list[cst.For]:
    out: list[cst.For] = []

    class V(cst.CSTVisitor):
        def visit_For(self, n: cst.For) -> None:
            out.append(n)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

    fn.visit(V())
    return out


def _fix_loop(ctx: FixContext, fn: cst.FunctionDef, loop: cst.For) -> Rewrite | Proposal | NoFix:
    try:
        return _plan_loop(ctx, fn, loop)
    except _Refuse as e:
        return NoFix(str(e))


def _plan_loop(ctx: FixContext, fn: cst.FunctionDef, loop: cst.For) -> Rewrite | Proposal:
    head = ctx.code(loop).splitlines()[0].strip()
    if loop.orelse is not None or loop.asynchronous is not None:
        raise _Refuse(f"`{head}` has an `else`")
    if not isinstance(loop.target, cst.Name):
        raise _Refuse(f"`{head}` does not count the rows with one name")
    i = loop.target.value
    bound = bound_names(fn)
    if not _over_batch(ctx, fn, loop.iter, bound):
        raise _Refuse(
            f"`{head}` does not run over the batch (`range(X.size(0))`, `X.shape[0]`, "
            "`len(X)`): the masked form covers every row"
        )
    body = loop.body
    if not isinstance(body, cst.IndentedBlock):
        raise _Refuse(f"`{head}` has its body on one line")
    in_loop = bound_names(loop.body)
    plan: _Plan | None = None
    stmts: list[cst.BaseSmallStatement] = []
    for st in body.body:
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            raise _Refuse(
                f"the loop's body has `{ctx.code(st).strip().splitlines()[0][:50]}`, "
                "not one simple statement a line"
            )
        stmts.append(st.body[0])
    # the lengths read: one tensor L, indexed by the loop's index
    for node in [*_calls(loop.body), *_bare_lengths(loop, i)]:
        got = length_read(node) or bare_read(node)
        if got is None or got[1] != i:
            continue
        lens, _ = got
        if plan is None:
            plan = _Plan(lens=lens, i=i)
        elif ctx.code(plan.lens) != ctx.code(lens):
            raise _Refuse("the loop reads two tensors of lengths")
        plan.reads.append(node)
    if plan is None:
        raise _Refuse(f"`{head}` reads no length `int(L[{i}])`/`L[{i}].item()`")
    if {n.value for n in name_nodes(plan.lens)} & set(in_loop):
        raise _Refuse("the lengths are bound in the loop")
    lines = [st for st in body.body if isinstance(st, cst.SimpleStatementLine)]
    for small, st in zip(stmts, lines, strict=True):
        try:
            _statement(ctx, fn, loop, plan, small, st, bound, in_loop)
        except _Refuse:
            _offsets(ctx, plan, stmts)
            raise
    return _finish(ctx, fn, loop, plan, bound)


def _offsets(ctx: FixContext, plan: _Plan, stmts: list[cst.BaseSmallStatement]) -> None:
    """Refuse, saying so, when a length is added to a running offset (``start += n``): the
    rows are packed one after another."""
    for small in stmts:
        if (
            isinstance(small, cst.AugAssign)
            and isinstance(small.operator, cst.AddAssign)
            and isinstance(small.value, cst.Name)
            and small.value.value in plan.ns
        ):
            start = ctx.code(small.target).strip()
            raise _Refuse(
                f"`{start} += {small.value.value}` reads the lengths as running offsets (rows "
                "packed one after another): a static form gathers row `b`'s steps at "
                f"`{start}_b + torch.arange(T)`, `{start}_b = (L.cumsum(0) - L)[b]`, clamped, "
                "and masks the steps past its length, T a static bound of the lengths"
            )


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in all_nodes(node) if isinstance(n, cst.Call)]


def _over_batch(ctx: FixContext, fn: cst.FunctionDef, it: cst.BaseExpression, bound: dict) -> bool:
    """``range(R)``, ``R`` the size of a tensor's first dim, or a name bound once to one."""
    if not (
        isinstance(it, cst.Call)
        and isinstance(it.func, cst.Name)
        and it.func.value == "range"
        and len(it.args) == 1
        and it.args[0].keyword is None
    ):
        return False
    r = it.args[0].value
    if isinstance(r, cst.Name):
        where = bound.get(r.value, [])
        if len(where) != 1 or not isinstance(where[0], cst.AssignTarget):
            return False
        a = ctx.parent(where[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return False
        r = a.value
    return _first_dim(r)


def _first_dim(r: cst.BaseExpression) -> bool:
    if isinstance(r, cst.Call):
        f = r.func
        if isinstance(f, cst.Name) and f.value == "len" and len(r.args) == 1:
            return _plain(r.args[0].value)
        if (
            isinstance(f, cst.Attribute)
            and f.attr.value == "size"
            and len(r.args) == 1
            and _int(r.args[0].value) == 0
        ):
            return _plain(f.value)
        return False
    if isinstance(r, cst.Subscript) and len(r.slice) == 1:
        idx = r.slice[0].slice
        v = r.value
        return (
            isinstance(idx, cst.Index)
            and _int(idx.value) == 0
            and isinstance(v, cst.Attribute)
            and v.attr.value == "shape"
            and _plain(v.value)
        )
    return False


def _statement(
    ctx: FixContext,
    fn: cst.FunctionDef,
    loop: cst.For,
    plan: _Plan,
    small: cst.BaseSmallStatement,
    line: cst.SimpleStatementLine,
    bound: dict,
    in_loop: dict,
) -> None:
    """Add what one statement of the loop's body becomes to ``plan`` (or refuse)."""
    what = ctx.code(line).strip().splitlines()[0][:60]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        t = small.targets[0].target
        if isinstance(t, cst.Name):
            _assign_name(ctx, fn, loop, plan, small, t.value, line, bound, in_loop, what)
            return
        if isinstance(t, cst.Subscript):
            _assign_rows(ctx, fn, loop, plan, t, small.value, line, in_loop, what)
            return
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        acc = small.target.value
        if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
            _accumulate(ctx, loop, plan, acc, small.value, in_loop, what)
            new = small.with_changes(value=_total(ctx, plan, small.value, in_loop, what))
            plan.out.append(line.with_changes(body=[new], leading_lines=()))
            plan.kinds.add("sum")
            return
    if isinstance(small, cst.Expr):
        got = append_call(small.value)
        if got is not None:
            _append(ctx, fn, loop, plan, got[0], got[1], line, in_loop, what)
            return
    raise _Refuse(f"the loop's body also does `{what}`")


def _assign_name(
    ctx: FixContext,
    fn: cst.FunctionDef,
    loop: cst.For,
    plan: _Plan,
    small: cst.Assign,
    v: str,
    line: cst.SimpleStatementLine,
    bound: dict,
    in_loop: dict,
    what: str,
) -> None:
    value = small.value
    outside = [
        r
        for r in name_nodes(fn.body, v, reads_only=True)
        if not any(a is loop for a in ctx.ancestors(r))
    ]
    # n = int(L[i]) (+/- an int)
    n_expr = _length_value(plan, value)
    if n_expr is not None:
        if len(bound.get(v, [])) != 1 or outside:
            raise _Refuse(f"the length `{v}` is also bound or read outside the loop")
        plan.ns[v] = n_expr
        return
    # acc = acc + E.sum()
    if isinstance(value, cst.BinaryOperation) and isinstance(
        value.operator, (cst.Add, cst.Subtract)
    ):
        left, right = value.left, value.right
        side = (
            "right"
            if isinstance(left, cst.Name) and left.value == v
            else "left"
            if isinstance(right, cst.Name)
            and right.value == v
            and isinstance(value.operator, cst.Add)
            else None
        )
        if side is not None:
            term = right if side == "right" else left
            _accumulate(ctx, loop, plan, v, term, in_loop, what)
            total = _total(ctx, plan, term, in_loop, what)
            new = small.with_changes(value=value.with_changes(**{side: total}))
            plan.out.append(line.with_changes(body=[new], leading_lines=()))
            plan.kinds.add("sum")
            return
    # v = E, a row read only in the loop
    if len(in_loop.get(v, [])) != 1 or outside:
        raise _Refuse(f"`{v}` is bound in the loop and read after it (the last row's value)")
    slices: list[tuple[cst.BaseExpression, str]] = []
    full = _row(ctx, plan, value, in_loop, what, slices)
    plan.rowbase[v] = _one_length(ctx, plan, slices, what)
    plan.rowvars.add(v)
    plan.out.append(line.with_changes(body=[small.with_changes(value=full)], leading_lines=()))


def _accumulate(
    ctx: FixContext,
    loop: cst.For,
    plan: _Plan,
    acc: str,
    term: cst.BaseExpression,
    in_loop: dict,
    what: str,
) -> None:
    """``acc`` is bound in the loop only by this statement and read there only by it."""
    if len(in_loop.get(acc, [])) != 1 or acc in plan.ns or acc in plan.rowvars or acc == plan.i:
        raise _Refuse(f"`{acc}` is bound more than once in the loop")
    reads = name_nodes(loop.body, acc, reads_only=True)
    if len(reads) > 1 or name_nodes(term, acc):
        raise _Refuse(f"`{what}` reads `{acc}` in the term it adds")


def _total(
    ctx: FixContext, plan: _Plan, term: cst.BaseExpression, in_loop: dict, what: str
) -> cst.BaseExpression:
    """The batch's ``E.sum()`` / ``E.mean()`` summed over the rows, masked."""
    red = _reduction(term, scalar=True)
    if red is None:
        raise _Refuse(f"`{what}` adds a term that is not a row's `.sum()`/`.mean()`")
    e, how = red
    rows, (base, key) = _rows_bound(ctx, plan, e, in_loop, what)
    t = ctx.torch()
    nv, valid = _valid(ctx, plan, base, key)
    vm = _shaped(valid, rows)
    if how == "sum":
        return template(f"{t}.where(__m__, __r__, 0).sum()", m=vm, r=rows)
    return template(
        f"({t}.where(__m__, __r__, 0).flatten(1).sum(1) / ({nv} * __r__.shape[2:].numel())).sum()",
        m=vm,
        r=rows,
    )


def _reduction(e: cst.BaseExpression, *, scalar: bool) -> tuple[cst.BaseExpression, str] | None:
    """(``E``, ``sum``/``mean``) for ``E.sum()`` (scalar) or ``E.sum(0)`` / ``E.sum(dim=0)``."""
    if not (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value in ("sum", "mean")
    ):
        return None
    if scalar:
        if e.args:
            return None
    else:
        if len(e.args) != 1:
            return None
        a = e.args[0]
        if not (a.keyword is None or a.keyword.value == "dim") or _int(a.value) != 0:
            return None
    return e.func.value, e.func.attr.value


def _rows_bound(
    ctx: FixContext, plan: _Plan, e: cst.BaseExpression, in_loop: dict, what: str
) -> tuple[cst.BaseExpression, tuple[cst.BaseExpression, str]]:
    """(the full rows of ``E``, a name bound before when it is not one; (the sliced tensor,
    the length's key) of its first slice)."""
    slices: list[tuple[cst.BaseExpression, str]] = []
    full = _row(ctx, plan, e, in_loop, what, slices)
    base = _one_length(ctx, plan, slices, what)
    if _plain(full):
        return full, base
    name = ctx.fresh_name("rows")
    plan.out.append(_bind(name, full))
    return cst.Name(name), base


def _one_length(
    ctx: FixContext, plan: _Plan, slices: list[tuple[cst.BaseExpression, str]], what: str
) -> tuple[cst.BaseExpression, str]:
    """The first slice, when every slice is cut by the same length."""
    if not slices:
        raise _Refuse(f"`{what}` reduces no row slice `Y[{plan.i}, :n]`")
    lens = {ctx.code(_n_expr(plan, k)) for _, k in slices}
    if len(lens) != 1:
        raise _Refuse(f"`{what}` cuts its slices by different lengths")
    return slices[0]


def _row(
    ctx: FixContext,
    plan: _Plan,
    e: cst.BaseExpression,
    in_loop: dict,
    what: str,
    slices: list[tuple[cst.BaseExpression, str]] | None = None,
) -> cst.BaseExpression:
    """``E'``: the row expression ``E`` read on all the rows (the module's doc), or refuse;
    ``slices`` gets (the sliced tensor, the length's key) of each slice it reads."""
    slices = [] if slices is None else slices

    def bad(why: str) -> _Refuse:
        return _Refuse(f"`{what}`: {why}")

    def row_of(x: cst.BaseExpression) -> bool:
        return bool(
            {n.value for n in name_nodes(x)} & (plan.rowvars | set(plan.ns) | {plan.i})
        ) or _has_slice(x)

    def go(x: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(x, (cst.Integer, cst.Float)):
            return x
        if isinstance(x, cst.Name):
            if x.value in plan.rowvars:
                slices.append(plan.rowbase[x.value])
                return x
            if x.value in ("True", "False", "None"):
                return x
            if x.value in plan.ns or x.value == plan.i:
                raise bad(f"`{x.value}` is read as a number")
            if x.value in in_loop:
                raise bad(f"`{x.value}` is bound in the loop")
            return x
        if isinstance(x, cst.Attribute):
            if not _plain(x) or {n.value for n in name_nodes(x)} & (set(in_loop) | {plan.i}):
                raise bad(f"`{ctx.code(x)}` is not read the same in every row")
            return x
        if isinstance(x, cst.Subscript):
            got = _slice_of(plan, x)
            if got is None:
                raise bad(f"`{ctx.code(x)}` is not a row slice `Y[{plan.i}, :n]`")
            y, key = got
            if {n.value for n in name_nodes(y)} & set(in_loop):
                raise bad(f"`{ctx.code(y)}` is bound in the loop")
            slices.append((y, key))
            return y
        if isinstance(x, cst.UnaryOperation) and isinstance(x.operator, cst.Minus):
            return x.with_changes(expression=go(x.expression))
        if isinstance(x, cst.BinaryOperation):
            op = x.operator
            if isinstance(op, (cst.Add, cst.Subtract, cst.Multiply)):
                return x.with_changes(left=go(x.left), right=go(x.right))
            if isinstance(op, cst.Divide) and not row_of(x.right):
                return x.with_changes(left=go(x.left), right=go(x.right))
            if isinstance(op, cst.Power) and (_int(x.right) or 0) >= 1:
                return x.with_changes(left=go(x.left))
            raise bad(
                f"`{ctx.code(x).strip()[:40]}` is not elementwise with a finite derivative "
                "(its value or gradient at the padding steps could differ)"
            )
        if isinstance(x, cst.Call) and isinstance(x.func, cst.Attribute):
            name = x.func.attr.value
            recv = x.func.value
            if name == "pow" and len(x.args) == 1 and (_int(x.args[0].value) or 0) >= 1:
                return x.with_changes(func=x.func.with_changes(value=go(recv)))
            if name in _METHODS and row_of(recv):
                args = [a.with_changes(value=go(a.value)) for a in x.args]
                if any(row_of(a.value) for a in x.args):
                    raise bad(f"`.{name}()` takes a row as an argument")
                return x.with_changes(func=x.func.with_changes(value=go(recv)), args=args)
            if name in _FUNCS and _torch_module(ctx, recv) and x.args:
                first = x.args[0]
                rest = x.args[1:]
                if first.keyword is not None or any(row_of(a.value) for a in rest):
                    raise bad(f"`{name}` takes a row other than as its first argument")
                return x.with_changes(args=[first.with_changes(value=go(first.value)), *rest])
        raise bad(
            f"`{ctx.code(x).strip()[:40]}` is not elementwise with a finite derivative "
            "(its value or gradient at the padding steps could differ)"
        )

    return go(e)


def _has_slice(x: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Subscript) for n in _subs(x))


def _subs(x: cst.CSTNode) -> list[cst.Subscript]:
    return [n for n in all_nodes(x) if isinstance(n, cst.Subscript)]


def _torch_module(ctx: FixContext, e: cst.BaseExpression) -> bool:
    base = e
    while isinstance(base, cst.Attribute):
        base = base.value
    return (
        isinstance(base, cst.Name)
        and (base.value in _TORCH_MODULES or base.value == ctx.torch())
        and ctx.foreign_module(base) is None
    )


def _slice_of(plan: _Plan, x: cst.Subscript) -> tuple[cst.BaseExpression, str] | None:
    """(``Y``, ``n``) for ``Y[i, :n]``, ``n`` a length name or an inline read."""
    got = _sub_form(plan, x)
    if got is None or got[2] != "head":
        return None
    return got[0], got[1]


def _sub_form(plan: _Plan, x: cst.Subscript) -> tuple[cst.BaseExpression, str, str] | None:
    """(``Y``, the length's key, ``head``/``tail``/``index``) for ``Y[i, :n]``, ``Y[i, n:]``,
    ``Y[i, n]``; the key is ``n``'s name or ``""`` for an inline read of ``L[i]``."""
    if len(x.slice) != 2 or not _plain(x.value):
        return None
    first, second = x.slice[0].slice, x.slice[1].slice
    if not (
        isinstance(first, cst.Index)
        and isinstance(first.value, cst.Name)
        and first.value.value == plan.i
    ):
        return None
    if isinstance(second, cst.Slice):
        if second.step is not None:
            return None
        if second.lower is None and second.upper is not None:
            key = _key(plan, second.upper)
            return (x.value, key, "head") if key is not None else None
        if second.upper is None and second.lower is not None:
            key = _key(plan, second.lower)
            return (x.value, key, "tail") if key is not None else None
        return None
    if isinstance(second, cst.Index):
        v = second.value
        key = _key(plan, v)
        if (
            key is None
            and isinstance(v, cst.BinaryOperation)
            and isinstance(v.operator, (cst.Add, cst.Subtract))
            and _int(v.right) is not None
        ):
            # `H[i, n - 1]`: the step before the length
            inner = _key(plan, v.left)
            if inner is not None:
                key = f"{inner}{type(v.operator).__name__}{_int(v.right)}"
                plan.ns.setdefault(key, v.with_changes(left=_n_expr(plan, inner), lpar=[], rpar=[]))
        return (x.value, key, "index") if key is not None else None
    return None


def _key(plan: _Plan, e: cst.BaseExpression) -> str | None:
    if isinstance(e, cst.Name) and e.value in plan.ns:
        return e.value
    got = length_read(e) or _same_bare(plan, e)
    if got is not None and got[1] == plan.i:
        return ""
    return None


def _same_bare(plan: _Plan, e: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
    """``L[i]`` itself, ``L`` the loop's lengths."""
    got = bare_read(e)
    if got is None or not _same(got[0], plan.lens):
        return None
    return got


def _same(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    return cst.Module([]).code_for_node(a) == cst.Module([]).code_for_node(b)


def _n_expr(plan: _Plan, key: str) -> cst.BaseExpression:
    return plan.ns[key] if key else plan.lens


def _length_value(plan: _Plan, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """``L`` for ``int(L[i])``, ``L - 1`` for ``L[i].item() - 1`` (``+``/``-`` an int), else None."""
    got = length_read(value) or _same_bare(plan, value)
    if got is not None and got[1] == plan.i:
        return plan.lens
    if (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, (cst.Add, cst.Subtract))
        and _int(value.right) is not None
    ):
        got = length_read(value.left)
        if got is not None and got[1] == plan.i:
            return value.with_changes(left=plan.lens, lpar=[], rpar=[])
    return None


def _valid(
    ctx: FixContext, plan: _Plan, base: cst.BaseExpression, key: str = ""
) -> tuple[str, cst.BaseExpression]:
    """(the name of the valid counts, the ``(B, T)`` mask of the steps ``Y[i, :n]`` keeps),
    bound before the statements (once per sliced tensor)."""
    code = ctx.code(base) + "|" + key
    t = ctx.torch()
    if code not in plan.bases:
        lens = _n_expr(plan, key)
        if not _plain(lens):
            raise _Refuse("the slice's bound is the length with arithmetic")
        nv = ctx.fresh_name("n_valid")
        valid = ctx.fresh_name("valid")
        plan.out.insert(
            _n_head(plan),
            _bind(
                nv,
                template(
                    f"{t}.where(__L__ < 0, __L__ + __X__.shape[1], __L__)"
                    ".clamp(0, __X__.shape[1]).to(__X__.device)",
                    L=lens,
                    X=base,
                ),
            ),
        )
        plan.out.insert(
            _n_head(plan) + 1,
            _bind(
                valid,
                template(
                    f"{t}.arange(__X__.shape[1], device=__X__.device) < {nv}[:, None]", X=base
                ),
            ),
        )
        plan.bases[code] = base
        plan.bases["nv|" + code] = cst.Name(nv)
        plan.bases["valid|" + code] = cst.Name(valid)
    nv_name = plan.bases["nv|" + code]
    return nv_name.value, plan.bases["valid|" + code]  # type: ignore[attr-defined]


def _n_head(plan: _Plan) -> int:
    """Where the next mask statement goes: after the mask statements made so far."""
    return sum(1 for k in plan.bases if k.startswith("nv|")) * 2


def _shaped(valid: cst.BaseExpression, like: cst.BaseExpression) -> cst.BaseExpression:
    """The ``(B, T)`` mask with a 1 for each further dim of ``like``."""
    return template("__v__.reshape(__v__.shape + (1,) * (__x__.dim() - 2))", v=valid, x=like)


def _assign_rows(
    ctx: FixContext,
    fn: cst.FunctionDef,
    loop: cst.For,
    plan: _Plan,
    target: cst.Subscript,
    value: cst.BaseExpression,
    line: cst.SimpleStatementLine,
    in_loop: dict,
    what: str,
) -> None:
    """``BUF[i, :n] = E``, ``BUF[i, n:] = c``, ``BUF[i] = E.sum(0)`` / ``H[i, n]``."""
    buf = target.value
    if not isinstance(buf, cst.Name) or buf.value in in_loop or buf.value == plan.i:
        raise _Refuse(f"`{what}` writes a tensor that is not a local bound before the loop")
    if any(
        not any(a is target for a in ctx.ancestors(n))
        for n in name_nodes(loop.body, buf.value)
        if n is not buf
    ):
        raise _Refuse(f"`{buf.value}` is also read in the loop")
    t = ctx.torch()
    form = _sub_form(plan, target)
    if form is not None and form[2] in ("head", "tail"):
        _, key, side = form
        nv, valid = _valid(ctx, plan, buf, key)
        del nv
        vm = _shaped(valid, buf)
        if side == "tail":
            vm = cst.UnaryOperation(cst.BitInvert(), atom(vm))
        if _constant(value):
            new = template("__b__.masked_fill_(__m__, __c__)", b=buf, m=vm, c=value)
        elif side == "head":
            slices: list[tuple[cst.BaseExpression, str]] = []
            full = _row(ctx, plan, value, in_loop, what, slices)
            if slices and ctx.code(_n_expr(plan, _one_length(ctx, plan, slices, what)[1])) != (
                ctx.code(_n_expr(plan, key))
            ):
                raise _Refuse(f"`{what}` writes rows cut by another length")
            new = template(f"__b__.copy_({t}.where(__m__, __f__, __b__))", b=buf, m=vm, f=full)
        else:
            raise _Refuse(f"`{what}` writes the steps past the length with a row")
        plan.out.append(line.with_changes(body=[cst.Expr(new)], leading_lines=()))
        plan.kinds.add("mask")
        _sized(ctx, fn, plan, buf, value, key)
        return
    if (
        len(target.slice) == 1
        and isinstance(target.slice[0].slice, cst.Index)
        and isinstance(target.slice[0].slice.value, cst.Name)
        and target.slice[0].slice.value.value == plan.i
    ):
        full = _row_value(ctx, plan, value, in_loop, what)
        new = template("__b__.copy_(__f__)", b=buf, f=full)
        plan.out.append(line.with_changes(body=[cst.Expr(new)], leading_lines=()))
        return
    raise _Refuse(f"`{what}` writes a part of a row other than `[{plan.i}, :n]`/`[{plan.i}, n:]`")


def _row_value(
    ctx: FixContext, plan: _Plan, value: cst.BaseExpression, in_loop: dict, what: str
) -> cst.BaseExpression:
    """The batch of the rows ``E.sum(0)`` / ``E.mean(0)`` / ``H[i, n]``."""
    t = ctx.torch()
    if isinstance(value, cst.Subscript):
        form = _sub_form(plan, value)
        if form is not None and form[2] == "index":
            h, key, _ = form
            if {n.value for n in name_nodes(h)} & set(in_loop):
                raise _Refuse(f"`{what}` indexes a tensor bound in the loop")
            plan.kinds.add("index")
            return template(
                f"__h__[{t}.arange(__h__.shape[0], device=__h__.device), __n__.to(__h__.device)]",
                h=h,
                n=atom(_n_expr(plan, key)),
            )
    red = _reduction(value, scalar=False)
    if red is None:
        raise _Refuse(
            f"`{what}` keeps a row that is not `E.sum(0)`/`E.mean(0)` of its valid steps or "
            f"`H[{plan.i}, n]`"
        )
    e, how = red
    rows, (base, key) = _rows_bound(ctx, plan, e, in_loop, what)
    nv, valid = _valid(ctx, plan, base, key)
    total = template(f"{t}.where(__m__, __r__, 0).sum(1)", m=_shaped(valid, rows), r=rows)
    plan.kinds.add("pool")
    if how == "mean":
        total = template(
            f"__s__ / {nv}.reshape({nv}.shape + (1,) * (__r__.dim() - 2))", s=total, r=rows
        )
    return total


def _append(
    ctx: FixContext,
    fn: cst.FunctionDef,
    loop: cst.For,
    plan: _Plan,
    call: cst.Call,
    lst: str,
    line: cst.SimpleStatementLine,
    in_loop: dict,
    what: str,
) -> None:
    """``rows.append(<a row>)`` with ``rows = []`` right before the loop and read once after it
    by ``torch.stack(rows)``."""
    filled = filled_list(ctx, fn, loop, lst)
    if filled is None:
        raise _Refuse(
            f"`{lst}` is not an empty list made right before the loop and read once after it"
        )
    empty, read = filled
    arg = ctx.parent(read)
    stack = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (
        isinstance(arg, cst.Arg)
        and arg.keyword is None
        and isinstance(stack, cst.Call)
        and isinstance(stack.func, cst.Attribute)
        and stack.func.attr.value == "stack"
        and _torch_module(ctx, stack.func.value)
        and stack.args[0] is arg
        and all(_int(a.value) == 0 for a in stack.args[1:])
    ):
        raise _Refuse(f"`{lst}` is read otherwise than by `torch.stack({lst})`")
    if len([r for r in name_nodes(loop.body, lst)]) != 1:
        raise _Refuse(f"`{lst}` is read in the loop")
    full = _row_value(ctx, plan, call.args[0].value, in_loop, what)
    plan.out.append(
        line.with_changes(
            body=[cst.Assign([cst.AssignTarget(cst.Name(lst))], full)], leading_lines=()
        )
    )
    plan.changes.append((empty, cst.RemoveFromParent()))
    plan.changes.append((stack, cst.Name(lst).with_changes(lpar=stack.lpar, rpar=stack.rpar)))


def _sized(
    ctx: FixContext,
    fn: cst.FunctionDef,
    plan: _Plan,
    buf: cst.BaseExpression,
    value: cst.BaseExpression,
    key: str,
) -> None:
    """Note a buffer whose steps were sized by ``int(L.max())``: the static size is that of the
    tensor its rows come from (or refuse)."""
    if not isinstance(buf, cst.Name):
        return
    bound = bound_names(fn)
    where = bound.get(buf.value, [])
    if len(where) != 1 or not isinstance(where[0], cst.AssignTarget):
        return
    a = ctx.parent(where[0])
    if not isinstance(a, cst.Assign) or not isinstance(a.value, cst.Call):
        return
    if not any(_data_size(ctx, fn, arg.value, bound) for arg in a.value.args):
        return
    src = [s for s in _subs(value) if _slice_of(plan, s) is not None]
    if not src:
        raise _Refuse(
            f"`{buf.value}` is sized by a number read from the data and its rows are no slice "
            "of an input: no static size holds them"
        )
    plan.sized.append((buf.value, src[0].value))


def _data_size(ctx: FixContext, fn: cst.FunctionDef, e: cst.BaseExpression, bound: dict) -> bool:
    """Is ``e`` ``int(L.max())`` / ``L.max().item()``, or a name bound once to one?"""
    if isinstance(e, cst.Name):
        where = bound.get(e.value, [])
        if len(where) != 1 or not isinstance(where[0], cst.AssignTarget):
            return False
        a = ctx.parent(where[0])
        return isinstance(a, cst.Assign) and _max_read(a.value) is not None
    return _max_read(e) is not None


def _max_read(e: cst.BaseExpression) -> cst.Call | None:
    """The call for ``int(L.max())``, ``L.max().item()``, ``int(L.max().item())``."""
    if not isinstance(e, cst.Call):
        return None
    inner: cst.BaseExpression | None = None
    if isinstance(e.func, cst.Name) and e.func.value == "int" and len(e.args) == 1:
        inner = e.args[0].value
        if isinstance(inner, cst.Call) and _item_of(inner) is not None:
            inner = _item_of(inner)
    else:
        inner = _item_of(e)
    if (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Attribute)
        and inner.func.attr.value == "max"
        and not inner.args
    ):
        return e
    return None


def _finish(
    ctx: FixContext,
    fn: cst.FunctionDef,
    loop: cst.For,
    plan: _Plan,
    bound: dict,
) -> Rewrite | Proposal:
    # every read of the lengths, of `n` and of `i` was consumed by a form above: check that no
    # statement kept one (the forms refuse a stray read; this is the loop as a whole)
    if not plan.out:
        raise _Refuse("the loop computes nothing but the lengths")
    out = list(plan.out)
    out[0] = out[0].with_changes(leading_lines=loop.leading_lines)
    changes: list[tuple[cst.CSTNode, object]] = [(loop, cst.FlattenSentinel(out))]
    changes.extend(plan.changes)
    lens = ctx.code(plan.lens).strip()
    what = {
        "mask": "each row's valid steps written through a mask",
        "sum": "the rows' sums over their valid steps masked",
        "pool": "each row pooled over its valid steps with a mask",
        "index": "each row's step at its length gathered at once",
    }
    title = (
        f"keep the lengths `{lens}` a tensor, the loop over the rows one masked expression: "
        + "; ".join(what[k] for k in ("mask", "sum", "pool", "index") if k in plan.kinds)
        + ": static shapes, no number read per row"
    )
    if not plan.sized:
        return Rewrite(title=title, changes=changes, imports=("torch",))  # type: ignore[arg-type]
    # a buffer sized by int(L.max()): the static size changes the output's shape
    max_reads: list[int] = []
    buf, src = plan.sized[0]
    a = ctx.parent(bound[buf][0])
    call = a.value  # type: ignore[union-attr]
    new_args = []
    for arg in call.args:
        v = arg.value
        if _data_size(ctx, fn, v, bound):
            read = v
            if isinstance(v, cst.Name):
                va = ctx.parent(bound[v.value][0])
                read = va.value  # type: ignore[union-attr]
                if len(name_nodes(fn.body, v.value, reads_only=True)) == 1:
                    changes.append((ctx.statement(va), cst.RemoveFromParent()))  # type: ignore[arg-type]
            max_reads.append(id(read))
            v = template("__y__.size(1)", y=src)
        new_args.append(arg.with_changes(value=v))
    changes.append((call, call.with_changes(args=new_args)))
    src_code = ctx.code(src).strip()
    max_code = ctx.code(ctx.parent(bound[buf][0]).value).strip()  # type: ignore[union-attr]
    if _only_summed(ctx, fn, loop, buf):
        # the zeros past each length add nothing to a sum over the steps: the same values
        fixed = Rewrite(
            title=title.replace(
                "static shapes",
                f"`{buf}` sized by `{src_code}.size(1)`, read only summed over its steps",
            ),
            changes=changes,  # type: ignore[arg-type]
            imports=("torch",),
        )
        fixed._max_reads = max_reads  # type: ignore[attr-defined]
        return fixed
    prop = Proposal(
        title=title.replace("static shapes", f"`{buf}` sized by `{src_code}.size(1)`"),
        changes=changes,  # type: ignore[arg-type]
        reason=(
            f"`{buf}` (`{max_code[:60]}`) has as many steps as the longest length, a number "
            f"read from the data; with the static size `{src_code}.size(1)` it holds the same "
            "rows and zeros past each length, but its shape changes when the longest length is "
            f"shorter: apply it where what reads `{buf}` accepts `{src_code}.size(1)` steps (a "
            "mask or a sum over the steps, which the zeros do not change), or cut the steps "
            f"after the compiled call (`{buf}[:, : int({lens}.max())]`)"
        ),
        imports=("torch",),
    )
    prop._max_reads = max_reads  # type: ignore[attr-defined]
    return prop


def _only_summed(ctx: FixContext, fn: cst.FunctionDef, loop: cst.For, buf: str) -> bool:
    """Is every read of ``buf`` after the loop ``buf.sum(1)``, or ``return buf`` from a function
    whose every call in the file (at least one) is summed so: the steps past each length, zeros
    either way, change no value read?"""
    reads = [
        r
        for r in name_nodes(fn.body, buf, reads_only=True)
        if not any(a is loop for a in ctx.ancestors(r))
    ]
    if not reads:
        return False
    for r in reads:
        par = ctx.parent(r)
        if isinstance(par, cst.Return) and par.value is r:
            calls = _calls_of(ctx, fn)
            if not calls or not all(_summed_over_steps(ctx, c) for c in calls):
                return False
        elif not _summed_over_steps(ctx, r):
            return False
    return True


def _summed_over_steps(ctx: FixContext, e: cst.CSTNode) -> bool:
    """``e.sum(1)`` / ``e.sum(dim=1)``."""
    attr = ctx.parent(e)
    call = ctx.parent(attr) if isinstance(attr, cst.Attribute) else None
    return (
        isinstance(attr, cst.Attribute)
        and attr.value is e
        and attr.attr.value == "sum"
        and isinstance(call, cst.Call)
        and call.func is attr
        and len(call.args) == 1
        and (call.args[0].keyword is None or call.args[0].keyword.value == "dim")
        and _int(call.args[0].value) == 1
    )


def _calls_of(ctx: FixContext, fn: cst.FunctionDef) -> list[cst.Call]:
    """The calls of ``fn`` in the file: ``self.<name>(...)`` for a method, ``<name>(...)``
    for a function; empty where the name is also read otherwise."""
    name = fn.name.value
    method = any(isinstance(a, cst.ClassDef) for a in ctx.ancestors(fn))
    out: list[cst.Call] = []
    for c in _calls(ctx.module):
        f = c.func
        if method and isinstance(f, cst.Attribute) and f.attr.value == name:
            if isinstance(f.value, cst.Name) and f.value.value == "self":
                out.append(c)
        elif not method and isinstance(f, cst.Name) and f.value == name:
            out.append(c)
    return out


def _constant(e: cst.BaseExpression) -> bool:
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return True
    return (
        isinstance(e, cst.UnaryOperation)
        and isinstance(e.operator, cst.Minus)
        and isinstance(e.expression, (cst.Integer, cst.Float))
    )


def _int(e: cst.BaseExpression) -> int | None:
    if isinstance(e, cst.Integer):
        return int(e.value)
    return None


def _plain(e: cst.BaseExpression) -> bool:
    """A name or an attribute of one: read again, the same value."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _bind(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])
