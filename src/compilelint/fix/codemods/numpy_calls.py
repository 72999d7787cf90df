"""NumPy in forward: a NumPy function of a tensor's values, turned back into a tensor, becomes
the torch function with the same dtype, device and shape semantics.

    deg = np.bincount(dst.cpu().numpy(), minlength=n)
    deg = torch.from_numpy(deg).to(x.dtype)
        -> deg = torch.zeros(n, dtype=torch.long, device=dst.cpu().device).index_add_(...)
           deg = deg.to(x.dtype)

The array arguments must be tensors read with ``.numpy()`` (``t.detach().cpu().numpy()``:
the ``.cpu()``/``.detach()`` stay, so the result lives where NumPy's did, on the CPU), and the
result may only be used where a tensor means the same: wrapped by ``torch.from_numpy`` (the
wrapper goes) or ``torch.as_tensor``, read by ``float``/``int``/``len``, sliced with a
positive step, ``.copy()`` (-> ``.clone()``). Every function the rewrite names comes from
:data:`TABLE` and is torch's: no NumPy name is ever written (see :mod:`compilelint.fix.foreign`).

Where torch's function has a data-dependent size too (``np.unique`` -> ``torch.unique``), the
rewrite is a proposal: the break moves instead of going.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from compilelint.fix.codemods.base import atom, name_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite


@dataclass(frozen=True)
class NpFunc:
    """How ``np.<name>(a, *rest, **kw)`` is written in torch. ``torch``: the function;
    ``params``: NumPy's parameter names in order (array first); ``allowed``: those the
    rewrite keeps (others refuse); ``build``: (torch alias, tensor, {param: text}) -> text;
    ``note``: what differs; ``moves``: torch's function breaks as well (a proposal)."""

    params: tuple[str, ...]
    allowed: frozenset[str]
    build: Callable[[str, str, dict[str, str]], str]
    note: str = ""
    moves: str = ""


def _elementwise(fn: str) -> NpFunc:
    return NpFunc(("x",), frozenset(), lambda t, a, kw: f"{t}.{fn}({a})")


def _bincount(t: str, a: str, kw: dict[str, str]) -> str:
    n = kw["minlength"]
    return (
        f"{t}.zeros({n}, dtype={t}.long, device={a}.device).index_add_(0, {a}, "
        f"{t}.ones_like({a}, dtype={t}.long))"
    )


def _percentile(t: str, a: str, kw: dict[str, str]) -> str:
    return f"{t}.quantile({a}.flatten().double(), {kw['q']} / 100)"


def _unique(t: str, a: str, kw: dict[str, str]) -> str:
    extra = "".join(f", {k}={kw[k]}" for k in ("return_inverse", "return_counts") if k in kw)
    return f"{t}.unique({a}, sorted=True{extra})"


def _clip(t: str, a: str, kw: dict[str, str]) -> str:
    return f"{t}.clamp({a}, {kw.get('a_min', 'None')}, {kw.get('a_max', 'None')})"


TABLE: dict[str, NpFunc] = {
    # int64 counts of non-negative int64 indices, `minlength` bins: torch's static-size form
    "bincount": NpFunc(
        ("x", "weights", "minlength"),
        frozenset({"minlength"}),
        _bincount,
        note="an index at or past `minlength` raises instead of growing the output",
    ),
    # NumPy's linear interpolation over the flattened array, in float64 like NumPy's
    "percentile": NpFunc(("a", "q"), frozenset({"q"}), _percentile),
    "unique": NpFunc(
        ("ar", "return_index", "return_inverse", "return_counts"),
        frozenset({"return_inverse", "return_counts"}),
        _unique,
        moves="`torch.unique` has a data-dependent size too: the break moves to it unless "
        "`torch._dynamo.config.capture_dynamic_output_shape_ops = True` is set",
    ),
    "argsort": NpFunc(
        ("a",),
        frozenset(),
        lambda t, a, kw: f"{t}.argsort({a}, dim=-1, stable=True)",
        note="equal values keep their order (NumPy's default sort does not promise one)",
    ),
    "clip": NpFunc(("a", "a_min", "a_max"), frozenset({"a_min", "a_max"}), _clip),
    **{f: _elementwise(f) for f in ("log", "exp", "sqrt", "abs", "tanh", "log1p", "expm1")},
}


def _tensor_of(ctx: FixContext, e: cst.BaseExpression) -> cst.BaseExpression | None:
    """``t.cpu()`` of ``t.cpu().numpy()`` (``-t.numpy()`` -> ``-t``): the tensor an array
    argument reads; None when it is not one."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
        inner = _tensor_of(ctx, e.expression)
        return None if inner is None else e.with_changes(expression=inner)
    if (
        isinstance(e, cst.Call)
        and not e.args
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "numpy"
        and ctx.foreign_module(e.func.value) is None
    ):
        return e.func.value
    return None


def _is_torch_call(ctx: FixContext, e: cst.CSTNode, *names: str) -> bool:
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and ctx.code(e.func.value).strip() == ctx.torch()
        and e.func.attr.value in names
    )


class _Uses:
    """The edits that let the uses of a NumPy value read a tensor instead."""

    def __init__(self) -> None:
        self.changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    def follow(self, ctx: FixContext, node: cst.BaseExpression) -> str | None:
        """Why ``node``'s value is used as a NumPy array only (None: a tensor does as well)."""
        cur: cst.CSTNode = node
        while True:
            p = ctx.parent(cur)
            if isinstance(p, cst.Subscript) and p.value is cur:
                for el in p.slice:
                    s = el.slice
                    if isinstance(s, cst.Slice) and s.step is not None:
                        return f"`{ctx.code(p).strip()[:40]}` slices with a step"
                cur = p
                continue
            if isinstance(p, cst.Attribute) and p.value is cur and p.attr.value == "copy":
                call = ctx.parent(p)
                if isinstance(call, cst.Call) and call.func is p and not call.args:
                    self.changes.append((p.attr, cst.Name("clone")))
                    cur = call
                    continue
            if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
                call = ctx.parent(p)
                if not isinstance(call, cst.Call) or call.args[0] is not p:
                    return "the value is passed to a call"
                if _is_torch_call(ctx, call, "from_numpy") and len(call.args) == 1:
                    self.changes.append((call, cur))  # type: ignore[arg-type]
                    return None
                if _is_torch_call(ctx, call, "as_tensor"):
                    return None
                if (
                    isinstance(call.func, cst.Name)
                    and call.func.value in ("float", "int", "len")
                    and len(call.args) == 1
                ):
                    return None
                return f"the value is passed to `{ctx.code(call.func).strip()[:40]}`"
            where = ctx.code(p).strip()[:40] if p is not None else "?"
            return f"the NumPy value is used in `{where}`"


def _reads_until_rebound(
    ctx: FixContext, stmt: cst.SimpleStatementLine, names: set[str]
) -> list[cst.Name] | None:
    """Reads of ``names`` after ``stmt`` in its block, up to and including the statement that
    binds one of them again (its right side reads the old value); None: not a plain block."""
    block = ctx.parent(stmt)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    body = list(block.body)
    out: list[cst.Name] = []
    for st in body[body.index(stmt) + 1 :]:
        for n in names:
            out.extend(name_nodes(st, n, reads_only=True))
        bound = {
            t.target.value
            for small in (st.body if isinstance(st, cst.SimpleStatementLine) else [])
            if isinstance(small, cst.Assign)
            for t in small.targets
            if isinstance(t.target, cst.Name)
        }
        if bound & names:
            return out
        if not isinstance(st, cst.SimpleStatementLine) and any(name_nodes(st, n) for n in names):
            # a compound statement that might bind a name again: its reads are taken, and
            # later statements may read either value
            return None
    return out


def numpy_to_torch(ctx: FixContext, call: cst.Call) -> Rewrite | Proposal | NoFix:
    """``np.<f>(t.numpy(), ...)`` whose value only flows into tensors -> torch's ``<f>``."""
    f = call.func
    assert isinstance(f, cst.Attribute)
    alias = ctx.code(f.value).strip()
    name = f.attr.value
    spec = TABLE.get(name)
    if spec is None:
        return NoFix(
            f"`{alias}.{name}` (NumPy) has no torch function of the same meaning here; move "
            "it out of the compiled region or write it with tensors"
        )
    if any(a.star for a in call.args):
        return NoFix("the NumPy call unpacks its arguments")
    given: dict[str, cst.BaseExpression] = {}
    for i, a in enumerate(call.args):
        key = (
            a.keyword.value
            if a.keyword is not None
            else (spec.params[i] if i < len(spec.params) else "")
        )
        if not key or key in given:
            return NoFix(f"`{alias}.{name}` is called with arguments the rewrite does not know")
        given[key] = a.value
    first = spec.params[0]
    if first not in given:
        return NoFix("the array is passed by keyword")
    extra = set(given) - {first} - spec.allowed
    if extra:
        return NoFix(f"`{alias}.{name}`'s `{sorted(extra)[0]}` has no same-meaning torch argument")
    if name == "bincount" and "minlength" not in given:
        return NoFix(
            "`np.bincount` without `minlength=` has a size only the data gives: pass the number "
            "of bins as `minlength=`"
        )
    if name == "percentile" and "q" not in given:
        return NoFix("`np.percentile` without `q`")
    tensor = _tensor_of(ctx, given[first])
    if tensor is None:
        return NoFix(
            f"the array passed to `{alias}.{name}` is not a tensor read with `.numpy()` on this "
            "line"
        )
    uses = _Uses()
    p = ctx.parent(call)
    if isinstance(p, cst.Assign) and p.value is call and len(p.targets) == 1:
        tgt = p.targets[0].target
        if isinstance(tgt, cst.Name):
            names = {tgt.value}
        elif isinstance(tgt, cst.Tuple) and all(
            isinstance(e.value, cst.Name) for e in tgt.elements
        ):
            names = {e.value.value for e in tgt.elements}  # type: ignore[attr-defined]
        else:
            return NoFix("the NumPy value is assigned to something other than names")
        stmt = ctx.parent(p)
        reads = (
            _reads_until_rebound(ctx, stmt, names)
            if isinstance(stmt, cst.SimpleStatementLine)
            else None
        )
        if reads is None:
            return NoFix("the NumPy value is read across compound statements")
        for r in reads:
            why = uses.follow(ctx, r)
            if why is not None:
                return NoFix(f"`{r.value}`: {why}")
    else:
        why = uses.follow(ctx, call)
        if why is not None:
            return NoFix(why)
    t = ctx.torch()
    kw = {k: ctx.code(v).strip() for k, v in given.items() if k != first}
    text = spec.build(t, ctx.code(atom(tensor)).strip(), kw)
    new = cst.parse_expression(text).with_changes(lpar=call.lpar, rpar=call.rpar)
    changes = _nested([(call, new), *uses.changes])
    title = (
        f"compute `{alias}.{name}` with torch (`{text.split('(')[0]}`) on the tensor itself: the "
        "same dtype, and the CPU device NumPy's result had (`.cpu()` stays)"
        + (f"; {spec.note}" if spec.note else "")
    )
    if spec.moves:
        return Proposal(title=title, changes=changes, reason=spec.moves, imports=("torch",))
    return Rewrite(title=title, changes=changes, imports=("torch",))


def _nested(
    changes: list[tuple[cst.CSTNode, cst.CSTNode]],
) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    """The changes with each replacement that is (or holds) an original node rewritten by the
    others: the engine replaces a node by its replacement as given, so an outer change
    (``torch.from_numpy(v)`` -> ``v``) must carry the inner ones."""
    swap = {id(o): r for o, r in changes}

    class T(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return swap.get(id(o), u)  # type: ignore[return-value]

    out: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    targets = {id(o) for o, _ in changes}
    for o, r in changes:
        if id(r) in targets or any(id(n) in targets for n in _descendants(r)):
            r = r.visit(T())  # type: ignore[assignment]
        out.append((o, r))
    # a change inside another change's target is carried by it
    inner: set[int] = set()
    for o, _ in out:
        inner |= {id(n) for n in _descendants(o) if n is not o}
    return [(o, r) for o, r in out if id(o) not in inner]


def _descendants(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    for c in node.children:
        out.extend(_descendants(c))
    return out
