"""CL113: a slice bound read from a tensor's values (``n = int(lengths.max())`` ...
``x[:, :n]``) is proposed as a mask, never applied.

- ``n = int(t.max())`` (or ``t.max().item()``) ... ``y = x[:, :n]``
      -> ``n = t.max()`` ... ``y = x * (torch.arange(x.shape[1], device=x.device) < n)
         .view(-1, *[1] * (x.dim() - 2)).to(x.dtype)``
- ``x[: span]`` with ``span`` a tensor -> the same mask

The mask keeps the full length: positions at or past the bound are zeroed instead of cut, so
the shape no longer depends on the data and the graph does not break. The outputs are the same
only when nothing is cut (every sequence as long as the longest) or when later code ignores
the zeroed positions; the codemod cannot show either, so the patch is a proposal (shown as a
diff, with that reason) for a person to judge.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    Codemod,
    all_nodes,
    atom,
    bound_names,
    name_nodes,
    number_expr,
    paren,
    template,
)
from compilelint.fix.codemods.trim import Cut, masked_cuts, masked_sums, narrow_cut, slice_cut
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding

_WHY = (
    "the mask keeps the cut positions (zeroed) and the full shape: the outputs match only "
    "when nothing is cut or when later code ignores those positions, which the codemod "
    "cannot show. Where the cut shape itself reaches the outputs (a batch trimmed to its "
    "longest sequence and returned), no static-shape rewrite keeps them: torch traces the "
    "slice with `torch._dynamo.config.capture_scalar_outputs = True` (the config remedy `fix "
    "--verify` tries)"
)


class SliceBoundMask(Codemod):
    CODE = "CL113"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        nodes = ctx.nodes_at(finding, cst.BaseExpression)
        if not nodes:
            return NoFix("the slice bound was not found in the file")
        node = nodes[0]
        if isinstance(node, (cst.Name, cst.Subscript)):
            # `for i in range(B): n = lengths[i]` ... `x[i, :n]`: the loop over the rows, one
            # masked expression (`row_lengths`)
            from compilelint.fix.codemods.row_lengths import row_loop_fix

            rows = row_loop_fix(ctx, node)
            if isinstance(rows, (Rewrite, Proposal)):
                return rows
        # the value read from the tensor: `int(e)`, `float(e)`, `e.item()`
        read = _read(node)
        if read is not None:
            return self._from_read(ctx, node, read)
        for a in ctx.ancestors(node):
            if isinstance(a, cst.Slice):
                bound = a.upper
                if a.lower is not None and a.step is None:
                    both = self._tensor_span(ctx, a)
                    if both is not None:
                        return both
                if (
                    bound is None
                    or a.lower is not None
                    or a.step is not None
                    or not _within(ctx, node, bound)
                ):
                    return NoFix("only an upper slice bound (`x[:n]`) is masked")
                if isinstance(bound, cst.Name):
                    origin = self._origin(ctx, bound)
                    if origin is not None:
                        return self._from_read(ctx, *origin)
                    trimmed = self._tensor_bound(ctx, bound)
                    if isinstance(trimmed, Rewrite):
                        return trimmed
                    if trimmed is not None:
                        return self._mask(ctx, [a], None, None, trimmed.reason)
                return self._mask(ctx, [a], None, None)
        return NoFix("the value is not a slice bound")

    def _origin(
        self, ctx: FixContext, name: cst.Name
    ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        fn = ctx.function(name)
        if fn is None:
            return None
        for n in name_nodes(fn.body, name.value):
            p = ctx.parent(n)
            if isinstance(p, cst.AssignTarget):
                a = ctx.parent(p)
                if isinstance(a, cst.Assign) and len(a.targets) == 1:
                    r = _read(a.value)
                    if r is not None:
                        return a.value, r
        return None

    def _tensor_span(self, ctx: FixContext, s: cst.Slice) -> Rewrite | NoFix | None:
        """``y = x[..., lo:hi]`` with each bound a name of a tensor (``start, end =
        voiced.argmax(), ...``), such a name plus or minus a number (``last + 1``), a number or
        absent: the trim is masked at the sums
        (:func:`~compilelint.fix.codemods.trim.masked_cuts`, both bounds by Python's slice
        rules). The bounds themselves are not changed. None: not this form."""
        fn = ctx.function(s)
        if fn is None:
            return None
        for b in (s.lower, s.upper):
            if b is None or number_expr(b):
                continue
            if (
                isinstance(b, cst.BinaryOperation)
                and isinstance(b.operator, (cst.Add, cst.Subtract))
                and number_expr(b.right)
            ):
                b = b.left  # `x[first : last + 1]`: an int tensor plus a number is one too
            if not (isinstance(b, cst.Name) and ctx.is_tensor(b)):
                return None
        cut = slice_cut(ctx, s)
        if isinstance(cut, NoFix):
            return cut
        anchor = s.upper if s.upper is not None else s.lower
        assert anchor is not None
        return masked_cuts(ctx, fn, [cut], [], anchor)

    def _tensor_bound(self, ctx: FixContext, bound: cst.Name) -> Rewrite | NoFix | None:
        """``n = lengths.max()`` (a tensor) whose every read is the upper bound of a trim:
        masked at the sums (:func:`~compilelint.fix.codemods.trim.masked_sums`)."""
        fn = ctx.function(bound)
        if fn is None:
            return None
        reads = name_nodes(fn.body, bound.value, reads_only=True)
        slices = [
            s
            for n in reads
            if isinstance(s := ctx.parent(n), cst.Slice)
            and s.upper is n
            and s.lower is None
            and s.step is None
        ]
        if len(slices) != len(reads):
            return None
        return masked_sums(ctx, fn, bound.value, slices, None, None)

    def _from_read(
        self, ctx: FixContext, call: cst.BaseExpression, value: cst.BaseExpression
    ) -> Rewrite | Proposal | NoFix:
        assign = ctx.parent(call)
        top = _arith_top(ctx, call)
        if top is not call and isinstance(call, cst.Call):
            # `end = int(t.max()) + 1`: the bound is the arithmetic around the read
            outer = ctx.parent(top)
            fn = ctx.function(call)
            if (
                isinstance(outer, cst.Assign)
                and len(outer.targets) == 1
                and isinstance(outer.targets[0].target, cst.Name)
                and fn is not None
            ):
                nm = outer.targets[0].target.value
                got = _cut_bounds(ctx, fn, nm, call, value)
                if got is not None:
                    return got
                return NoFix(f"`{nm}` is not used as an upper slice bound (`x[:{nm}]`)")
            return NoFix("the value read from the tensor is not assigned to a name")
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return NoFix("the value read from the tensor is not assigned to a name")
        name = assign.targets[0].target.value
        fn = ctx.function(assign)
        if fn is None:
            return NoFix("the value is not read in a function")
        if isinstance(call, cst.Call):
            cut = _cut_bounds(ctx, fn, name, call, value)
            if cut is not None:
                return cut
        slices: list[cst.Slice] = []
        for n in name_nodes(fn.body, name, reads_only=True):
            s = ctx.parent(n)
            if isinstance(s, cst.Slice) and s.upper is n and s.lower is None and s.step is None:
                slices.append(s)
        if not slices:
            return NoFix(f"`{name}` is not used as an upper slice bound (`x[:{name}]`)")
        summed = self._summed(ctx, fn, name, slices, call, value)
        if summed is not None:
            return summed
        why = ""
        if isinstance(call, cst.Call) and len(name_nodes(fn.body, name, reads_only=True)) == len(
            slices
        ):
            trimmed = masked_sums(ctx, fn, name, slices, call, value)
            if isinstance(trimmed, Rewrite):
                return trimmed
            why = trimmed.reason
        return self._mask(ctx, slices, call, value, why)

    def _summed(
        self,
        ctx: FixContext,
        fn: cst.FunctionDef,
        name: str,
        slices: list[cst.Slice],
        call: cst.BaseExpression,
        value: cst.BaseExpression,
    ) -> Rewrite | None:
        """``n = int(e)`` whose every read is ``x[:, :n].sum(1)`` (a sum over the cut dim at
        once, ``x`` a name or attribute, the other indices ``:``): the positions past the bound
        are replaced by zeros, which add nothing to the sum. The bound follows Python's slice
        rules (a negative ``n`` counts from the end; a bound past the end cuts nothing)."""
        if len(name_nodes(fn.body, name, reads_only=True)) != len(slices):
            return None
        if not isinstance(call, cst.Call):
            return None
        f = call.func
        if isinstance(f, cst.Name) and f.value == "int":
            bound: cst.BaseExpression = template(f"{ctx.torch('trunc')}(__e__)", e=value)
        elif isinstance(f, cst.Attribute) and f.attr.value == "item":
            bound = value
        else:
            return None
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = [(call, bound)]
        for s in slices:
            el = ctx.parent(s)
            sub = ctx.parent(el) if el is not None else None
            if not isinstance(sub, cst.Subscript) or not isinstance(el, cst.SubscriptElement):
                return None
            x = sub.value
            if not isinstance(x, (cst.Name, cst.Attribute)) or sub.lpar:
                return None
            dim = list(sub.slice).index(el)
            if any(not _full(e) for e in sub.slice if e is not el):
                return None
            attr = ctx.parent(sub)
            red = ctx.parent(attr) if attr is not None else None
            if not (
                isinstance(attr, cst.Attribute)
                and attr.value is sub
                and attr.attr.value == "sum"
                and isinstance(red, cst.Call)
                and red.func is attr
                and _reduced_dim(red) == dim
            ):
                return None
            th = ctx.torch()
            new = template(
                f"{th}.where({th}.arange(__x__.shape[{dim}], device=__x__.device)"
                f".view(-1, *[1] * (__x__.dim() - {dim + 1})) < "
                f"{th}.where(__n__ < 0, __n__ + __x__.shape[{dim}], __n__), __x__, 0)",
                x=x,
                n=atom(s.upper),  # type: ignore[arg-type]
            )
            changes.append((sub, new))
        return Rewrite(
            title="sum over the positions before the bound with a mask (`torch.where(arange < "
            "n, x, 0).sum(d)`) instead of cutting them: the shape stays static",
            changes=changes,
            imports=("torch",),
        )

    def _mask(
        self,
        ctx: FixContext,
        slices: list[cst.Slice],
        call: cst.BaseExpression | None,
        value: cst.BaseExpression | None,
        why: str = "",
    ) -> Proposal | NoFix:
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        if call is not None and value is not None:
            changes.append((call, value))
        for s in slices:
            el = ctx.parent(s)
            sub = ctx.parent(el) if el is not None else None
            if not isinstance(sub, cst.Subscript) or not isinstance(el, cst.SubscriptElement):
                return NoFix("the slice is not an index of a tensor")
            dim = list(sub.slice).index(el)
            others = [e for e in sub.slice if e is not el]
            if any(
                not (
                    isinstance(e.slice, cst.Slice)
                    and e.slice.lower is None
                    and e.slice.upper is None
                    and e.slice.step is None
                )
                for e in others
            ):
                return NoFix("the index holds more than full slices (`:`) around the bound")
            x = atom(sub.value)
            new = template(
                f"__x__ * ({ctx.torch('arange')}(__x__.shape[{dim}], device=__x__.device)"
                f" < __n__).view(-1, *[1] * (__x__.dim() - {dim + 1})).to(__x__.dtype)",
                x=x,
                n=atom(s.upper),  # type: ignore[arg-type]
            )
            changes.append((sub, paren(new)))
        return Proposal(
            title="mask the positions past the bound instead of cutting them (the shape stays "
            "static)",
            changes=changes,
            reason=_WHY + (f" ({why})" if why else ""),
            imports=("torch",),
        )


def _read(e: cst.CSTNode) -> cst.BaseExpression | None:
    """``e`` of ``int(e)``, ``float(e)``, ``e.item()``."""
    if not isinstance(e, cst.Call):
        return None
    f = e.func
    if isinstance(f, cst.Name) and f.value in ("int", "float") and len(e.args) == 1:
        return e.args[0].value
    if isinstance(f, cst.Attribute) and f.attr.value == "item" and not e.args:
        return f.value
    return None


def _full(e: cst.SubscriptElement) -> bool:
    return (
        isinstance(e.slice, cst.Slice)
        and e.slice.lower is None
        and e.slice.upper is None
        and e.slice.step is None
    )


def _reduced_dim(call: cst.Call) -> int | None:
    """The dim of ``.sum(d)`` / ``.sum(dim=d)`` (a non-negative int literal), else None."""
    dims = [
        a.value
        for a in call.args
        if (a.keyword is None and a is call.args[0]) or (a.keyword and a.keyword.value == "dim")
    ]
    if len(dims) != 1 or not isinstance(dims[0], cst.Integer):
        return None
    if any(a.star or (a.keyword and a.keyword.value not in ("dim", "keepdim")) for a in call.args):
        return None
    return int(dims[0].value, 0)


def _within(ctx: FixContext, node: cst.CSTNode, top: cst.CSTNode) -> bool:
    return node is top or any(a is top for a in ctx.ancestors(node))


def _cut_of(ctx: FixContext, read: cst.Name) -> Cut | NoFix | None:
    """The trim whose bound ``read`` is part of: ``x[:, read:]``, ``x[:, a:read + 1]``,
    ``x.narrow(d, 0, read)`` (through arithmetic with numbers and names); None when ``read``
    is not in a bound."""
    cur: cst.CSTNode = read
    while True:
        p = ctx.parent(cur)
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
            other = p.right if p.left is cur else p.left
            if not (number_expr(other) or isinstance(other, cst.Name)):
                return None
            cur = p
            continue
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
            cur = p
            continue
        break
    if isinstance(p, cst.Slice) and (p.lower is cur or p.upper is cur):
        return slice_cut(ctx, p)
    if isinstance(p, cst.Arg) and p.keyword is None:
        call = ctx.parent(p)
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "narrow"
            and len(call.args) == 3
            and call.args[2] is p
        ):
            return narrow_cut(call)
    return None


def _cut_bounds(
    ctx: FixContext,
    fn: cst.FunctionDef,
    name: str,
    call: cst.Call,
    value: cst.BaseExpression,
) -> Rewrite | NoFix | None:
    """``start = int(a.min())``; ``end = int(b.max())``; ``y = x[:, start:end]``, or
    ``y = x.narrow(1, 0, n)``, or ``x[:, lag:]``: every read of the bounds' names is in the
    bounds of trims (the names read from tensors, each assigned once), which
    :func:`~compilelint.fix.codemods.trim.masked_cuts` masks at the reductions. None for
    the plain ``x[:, :n]`` (CL113's first forms) or when ``name`` bounds no trim."""
    cuts: dict[int, Cut] = {}
    reads = [(call, value)]
    names = [name]
    binders = bound_names(fn)
    i = 0
    while i < len(names):
        nm = names[i]
        i += 1
        if len(binders.get(nm, [])) != 1:
            return NoFix(f"`{nm}` is assigned more than once") if i > 1 else None
        for r in name_nodes(fn.body, nm, reads_only=True):
            got = _cut_of(ctx, r)
            if got is None:
                if not cuts and i == 1:
                    return None
                stmt = ctx.statement(r)
                what = ctx.code(stmt or r).strip().splitlines()[0][:50]
                return NoFix(f"`{nm}` is also used in `{what}`, not only as a bound of a trim")
            if isinstance(got, NoFix):
                return got
            cuts.setdefault(id(got.node), got)
            for b in (got.lower, got.upper):
                for n in name_nodes(b, None) if b is not None else []:
                    if n.value in names:
                        continue
                    origin = _origin_of(ctx, fn, n.value)
                    if origin is None:
                        return NoFix(
                            f"the bound `{n.value}` of `{ctx.code(got.node).strip()[:40]}` is "
                            "not read from a tensor"
                        )
                    reads.append(origin)
                    names.append(n.value)
    if not cuts:
        return None
    plain = all(
        isinstance(c.node, cst.Subscript) and c.lower is None and isinstance(c.upper, cst.Name)
        for c in cuts.values()
    )
    if plain:
        return None
    return masked_cuts(ctx, fn, list(cuts.values()), reads, cst.Name(name))


def _origin_of(
    ctx: FixContext, fn: cst.FunctionDef, name: str
) -> tuple[cst.Call, cst.BaseExpression] | None:
    """(``int(e)``/``e.item()``, ``e``) of the one assignment ``name = ...`` in ``fn``."""
    for n in name_nodes(fn.body, name):
        p = ctx.parent(n)
        if isinstance(p, cst.AssignTarget):
            a = ctx.parent(p)
            if not isinstance(a, cst.Assign) or len(a.targets) != 1:
                continue
            for c in all_nodes(a.value):
                r = _read(c) if isinstance(c, cst.Call) else None
                if r is not None and _arith_top(ctx, c) is a.value:
                    return c, r  # type: ignore[return-value]
    return None


def _arith_top(ctx: FixContext, node: cst.CSTNode) -> cst.CSTNode:
    """The outermost arithmetic with numbers around ``node`` (``int(e) + 1``, ``-int(e)``),
    or ``node``."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
            other = p.right if p.left is cur else p.left
            if not number_expr(other):
                return cur
            cur = p
            continue
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
            cur = p
            continue
        return cur
