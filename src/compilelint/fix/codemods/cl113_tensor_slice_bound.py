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

from compilelint.fix.codemods.base import Codemod, atom, name_nodes, paren, template
from compilelint.fix.codemods.trim import masked_sums
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
        # the value read from the tensor: `int(e)`, `float(e)`, `e.item()`
        read = _read(node)
        if read is not None:
            return self._from_read(ctx, node, read)
        for a in ctx.ancestors(node):
            if isinstance(a, cst.Slice):
                bound = a.upper
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
