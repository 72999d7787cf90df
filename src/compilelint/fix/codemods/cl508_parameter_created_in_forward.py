"""CL508: a layer built lazily in ``forward`` becomes a lazy module built in ``__init__``.

- ``self.head = None`` in ``__init__`` + ``if self.head is None: self.head = nn.Linear(x.shape[-1],
  n)`` in ``forward`` + ``self.head(x)``
                        -> ``self.head = nn.LazyLinear(n)`` in ``__init__``; the ``if`` goes.

``nn.LazyLinear`` infers ``in_features`` from the last dimension of its first input, as the
original read it from ``x.shape[-1]`` (``LazyConv1d/2d/3d``, ``LazyConvTranspose*``,
``LazyBatchNorm*`` and ``LazyInstanceNorm*`` infer the channels, ``x.shape[1]``). The weights
are drawn when the module first runs, as the original drew them when it built the layer, and
dynamo materialises lazy modules without a break. Applied only when every call of the layer
passes the tensor whose size was read, that name is bound once, the other constructor
arguments are known in ``__init__`` (literals, ``self`` attributes set there before, module
names), and the class reads the attribute nowhere else.

- ``self.proj = nn.Sequential(nn.Linear(x.shape[-1], h), nn.ReLU(), nn.Linear(h, n))`` under the
  same ``if``    -> ``nn.Sequential(nn.LazyLinear(h), nn.ReLU(), nn.LazyLinear(n))`` in ``__init__``.

Every layer of the sequence becomes lazy, not only the first: a layer built eagerly in
``__init__`` would draw its weights before the lazy one, so the parameters would differ from
the original's. Lazy, they are drawn one after the other at the first call, in the order the
original built them, provided nothing between them draws random numbers (only activations
without parameters are allowed between: no ``Dropout``) and each layer's input size is the
size the layer before gives (textually the same expression), which is what it infers. Other
layers built in ``forward`` (per-key heads for keys from the data, ``nn.LayerNorm`` of the input
size, ``nn.Parameter``) get no fix and the manual recipe.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, all_nodes, bound_names, number_expr
from compilelint.fix.codemods.lazy_heads import lookup_forms
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

# layer -> (its lazy counterpart, the dimension of the input the lazy one infers its size from)
_LAZY: dict[str, tuple[str, int]] = {
    "Linear": ("LazyLinear", -1),
    **{f"Conv{d}d": (f"LazyConv{d}d", 1) for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": (f"LazyConvTranspose{d}d", 1) for d in (1, 2, 3)},
    **{f"BatchNorm{d}d": (f"LazyBatchNorm{d}d", 1) for d in (1, 2, 3)},
    **{f"InstanceNorm{d}d": (f"LazyInstanceNorm{d}d", 1) for d in (1, 2, 3)},
}
_RECIPE = (
    "build the layer in `__init__` (`nn.LazyLinear(out)` and the other `nn.Lazy*` modules infer "
    "the input size at the first call; per-key heads: a `ModuleDict` of lazy layers for every "
    "key known there), or run one eager call before compiling"
)


class LazyLayerInInit(Codemod):
    CODE = "CL508"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the call was not found in the file")
        call = calls[0]
        par = ctx.parent(call)
        outer = ctx.parent(par) if isinstance(par, cst.Arg) else None
        if (
            isinstance(outer, cst.Call)
            and _is_sequential(outer)
            and outer.args[0] is not par
            and isinstance(outer.args[0].value, cst.Call)
        ):
            call = outer.args[0].value  # a later layer of the sequence: rewritten with the first
        f = call.func
        cls = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
        if cls not in _LAZY:
            return NoFix(f"`{cls}` has no lazy counterpart: {_RECIPE}")
        lazy, dim = _LAZY[cls]
        alt = lookup_forms(ctx, call, lazy, dim)  # `.get`-None, `except KeyError`, `hasattr`
        if alt is not None:
            return alt
        assign = ctx.parent(call)
        seq: cst.Call | None = None  # `nn.Sequential(<the layer>, ...)`
        if isinstance(assign, cst.Arg):
            outer = ctx.parent(assign)
            if isinstance(outer, cst.Call) and _is_sequential(outer) and outer.args[0] is assign:
                seq, assign = outer, ctx.parent(outer)
            else:
                name = ctx.code(outer.func).strip() if isinstance(outer, cst.Call) else "a call"
                return NoFix(
                    f"the layer is built inside `{name}(...)` on first use: the other layers "
                    f"would draw their weights at another time; {_RECIPE}"
                )
        built_value = seq if seq is not None else call
        if (
            not isinstance(assign, cst.Assign)
            or assign.value is not built_value
            or len(assign.targets) != 1
        ):
            return NoFix(f"the layer is not assigned to `self` as it is built: {_RECIPE}")
        tgt = assign.targets[0].target
        attr = self_attr(tgt)
        if attr is None and isinstance(tgt, cst.Subscript) and self_attr(tgt.value) is not None:
            return _per_key(ctx, call, assign, tgt, lazy, dim)
        if attr is None:
            return NoFix(f"the layer is not kept on `self` as one attribute: {_RECIPE}")
        line = ctx.statement(assign)
        guard = ctx.parent(ctx.parent(line)) if line is not None else None  # type: ignore[arg-type]
        if (
            not isinstance(guard, cst.If)
            or guard.orelse is not None
            or not _is_none_test(guard.test, attr)
            or not isinstance(guard.body, cst.IndentedBlock)
            or len(guard.body.body) != 1
            or not isinstance(line, cst.SimpleStatementLine)
            or len(line.body) != 1
        ):
            return NoFix(f"the layer is not built alone under `if self.{attr} is None:`: {_RECIPE}")
        fn = ctx.function(guard)
        klass = ctx.enclosing(guard, cst.ClassDef)
        if fn is None or klass is None or not isinstance(ctx.parent(guard), cst.IndentedBlock):
            return NoFix("the layer is not built in a method")
        args = list(call.args)
        if not args or args[0].keyword is not None or args[0].star:
            return NoFix(f"the input size is not the first positional argument: {_RECIPE}")
        src = _size_source(args[0].value, dim)
        if src is None:
            which = "x.shape[-1]" if dim == -1 else "x.shape[1]"
            return NoFix(
                f"the input size is not read from the input (`{which}`), which `nn.{lazy}` "
                f"infers: {_RECIPE}"
            )
        if len(bound_names(fn).get(src, [])) > 1:
            return NoFix(f"`{src}` is bound more than once: the size read may not be the input's")
        init = next(
            (
                s
                for s in klass.body.body  # type: ignore[union-attr]
                if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
            ),
            None,
        )
        if init is None:
            return NoFix(f"the class has no `__init__` to build the layer in: {_RECIPE}")
        none_line = _none_assignment(init, attr)
        if none_line is None:
            return NoFix(f"`__init__` does not set `self.{attr} = None`: {_RECIPE}")
        set_before = _self_attrs_before(init, none_line)
        rest = args[1:]
        for a in rest:
            bad = _not_in_init(ctx, a.value, set_before, fn, init)
            if bad is not None:
                return NoFix(f"`{bad}` is not known in `__init__`: {_RECIPE}")
        seq_args: list[cst.Arg] = []
        if seq is not None:
            got = _lazy_sequence(ctx, seq, cls, dim, set_before, fn, init)
            if isinstance(got, NoFix):
                return got
            seq_args = got
            why = _first_call_next(ctx, guard, attr)
            if why:
                return NoFix(f"{why}: {_RECIPE}")
        # every other read of `self.<attr>` in the class: the test, and calls on `src`
        for n in all_nodes(klass):
            if not isinstance(n, cst.Attribute) or self_attr(n) != attr:
                continue
            if any(a is guard.test for a in ctx.ancestors(n)) or any(
                t.target is n for t in assign.targets
            ):
                continue
            if any(a is none_line for a in ctx.ancestors(n)):
                continue
            p = ctx.parent(n)
            if isinstance(p, cst.Call) and p.func is n:
                pos = [x for x in p.args if x.keyword is None and not x.star]
                if len(pos) == 1 and len(p.args) == 1 and _same(pos[0].value, src):
                    continue
                return NoFix(
                    f"`{ctx.code(p).strip()[:40]}` does not pass `{src}`, whose size the layer "
                    "was built for"
                )
            stmt = ctx.statement(n)
            where = ctx.code(stmt).strip().splitlines()[0][:40] if stmt is not None else attr
            return NoFix(f"`self.{attr}` is also read in `{where}`: {_RECIPE}")
        new_func = (
            f.with_changes(attr=cst.Name(lazy)) if isinstance(f, cst.Attribute) else cst.Name(lazy)
        )
        kept = [*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if rest else []
        built = call.with_changes(func=new_func, args=kept)
        if seq is not None:
            built = seq.with_changes(args=[seq.args[0].with_changes(value=built), *seq_args])
        stmt_init = none_line.body[0]
        assert isinstance(stmt_init, cst.Assign)
        return Rewrite(
            title=f"build `self.{attr}` in `__init__` as `nn.{lazy}`, which infers the input "
            "size at its first call (the weights are drawn then, as before); the `if` in "
            f"`{fn.name.value}` goes",
            changes=[
                (stmt_init, stmt_init.with_changes(value=built)),
                (guard, cst.RemovalSentinel.REMOVE),
            ],
        )


# modules without parameters that draw no random numbers: the lazy layers around them draw
# their weights one after the other at the first call, in the order the original built them
_PLAIN = frozenset(
    {
        "ReLU",
        "ReLU6",
        "GELU",
        "SiLU",
        "Tanh",
        "Sigmoid",
        "LeakyReLU",
        "ELU",
        "Softplus",
        "Mish",
        "Hardswish",
        "Identity",
    }
)
_SIZE_KW = ("out_features", "out_channels")


def _first_call_next(ctx: FixContext, guard: cst.If, attr: str) -> str:
    """Why the lazy layers might draw their weights later than the original built them ("":
    they do not). The statement after the ``if`` must call ``self.<attr>`` before any other
    call it makes (calls around it excepted): a call in between (another layer built, a
    dropout) could draw random numbers before the lazy layers draw their weights."""
    block = ctx.parent(guard)
    stmts = list(block.body) if isinstance(block, cst.IndentedBlock) else []
    k = stmts.index(guard) + 1 if guard in stmts else len(stmts)
    if k >= len(stmts):
        return "nothing calls the layers right after they are built"
    nxt = stmts[k]
    calls = [n for n in all_nodes(nxt) if isinstance(n, cst.Call)]
    mine = [c for c in calls if self_attr(c.func) == attr]
    if not mine:
        return f"the statement after the `if` does not call `self.{attr}`"
    first = mine[0]
    above = set(map(id, ctx.ancestors(first)))
    start = ctx.span(first)[:2]
    for c in calls:
        if c is first or id(c) in above:
            continue
        if ctx.span(c)[:2] < start:
            return (
                f"`{ctx.code(c).strip()[:40]}` runs before `self.{attr}` is first called: the "
                "lazy layers would draw their weights after it"
            )
    return ""


def _is_sequential(call: cst.Call) -> bool:
    f = call.func
    name = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
    return (
        name == "Sequential"
        and bool(call.args)
        and all(a.keyword is None and not a.star for a in call.args)
    )


def _out_size(layer: str, call: cst.Call) -> cst.BaseExpression | None:
    """The size a layer gives the dimension its lazy counterpart infers from."""
    pos = [a for a in call.args if a.keyword is None and not a.star]
    if layer.startswith(("BatchNorm", "InstanceNorm")):
        return pos[0].value if pos else None
    if len(pos) >= 2:
        return pos[1].value
    kw = [a for a in call.args if a.keyword is not None and a.keyword.value in _SIZE_KW]
    return kw[0].value if kw else None


def _lazy_sequence(
    ctx: FixContext,
    seq: cst.Call,
    first: str,
    dim: int,
    attrs: set[str],
    fn: cst.FunctionDef,
    init: cst.FunctionDef,
) -> list[cst.Arg] | NoFix:
    """The arguments after the first of ``nn.Sequential(nn.Linear(x.shape[-1], h), act,
    nn.Linear(h, n), ...)`` with every layer lazy (``nn.LazyLinear(n)``): each infers the size
    the original passed (the one the layer before gives that dimension; activations keep
    it), and all draw their weights at the first call in the original's order (nothing between
    them draws random numbers). None of them is left eager: a layer built in ``__init__``
    would draw its weights before the lazy ones."""
    prev = _out_size(first, seq.args[0].value)  # type: ignore[arg-type]
    out: list[cst.Arg] = []
    for a in seq.args[1:]:
        e = a.value
        f = e.func if isinstance(e, cst.Call) else None
        name = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
        if not isinstance(e, cst.Call) or not name:
            return NoFix(f"`{ctx.code(e).strip()[:40]}` in the `nn.Sequential` is not a layer")
        for arg in e.args:
            bad = _not_in_init(ctx, arg.value, attrs, fn, init)
            if bad is not None:
                return NoFix(f"`{bad}` is not known in `__init__`: {_RECIPE}")
        if name in _PLAIN:
            out.append(a)
            continue
        if name not in _LAZY or _LAZY[name][1] != dim:
            return NoFix(
                f"`nn.{name}` in the `nn.Sequential` has no lazy counterpart inferring the same "
                f"dimension, or draws random numbers between the layers: {_RECIPE}"
            )
        pos = [x for x in e.args if x.keyword is None and not x.star]
        code = cst.Module([]).code_for_node
        if not pos or prev is None or code(pos[0].value).strip() != code(prev).strip():
            return NoFix(
                f"the input size of `{ctx.code(e).strip()[:40]}` is not the size the layer "
                f"before gives: {_RECIPE}"
            )
        nxt = _out_size(name, e)
        rest = list(e.args[1:])
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        lazy = _LAZY[name][0]
        func = (
            e.func.with_changes(attr=cst.Name(lazy))
            if isinstance(e.func, cst.Attribute)
            else cst.Name(lazy)
        )
        out.append(a.with_changes(value=e.with_changes(func=func, args=rest)))
        prev = nxt
    return out


def _is_none_test(test: cst.BaseExpression, attr: str) -> bool:
    """``self.<attr> is None`` / ``not hasattr``-free forms: only the ``is None`` test."""
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
        and self_attr(test.left) == attr
    )


def _size_source(e: cst.BaseExpression, dim: int) -> str | None:
    """``x`` of ``x.shape[dim]`` / ``x.size(dim)`` (``x`` a name)."""
    want = {str(dim)} if dim >= 0 else {"-1"}
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute):
        base, name = e.value.value, e.value.attr.value
        if name != "shape" or len(e.slice) != 1 or not isinstance(e.slice[0].slice, cst.Index):
            return None
        idx = cst.Module([]).code_for_node(e.slice[0].slice.value).strip()
    elif (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "size"
    ):
        base = e.func.value
        if len(e.args) != 1:
            return None
        idx = cst.Module([]).code_for_node(e.args[0].value).strip()
    else:
        return None
    if idx not in want or not isinstance(base, cst.Name):
        return None
    return base.value


def _same(e: cst.BaseExpression, name: str) -> bool:
    return isinstance(e, cst.Name) and e.value == name


def _none_assignment(init: cst.FunctionDef, attr: str) -> cst.SimpleStatementLine | None:
    for st in init.body.body:  # type: ignore[union-attr]
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            continue
        a = st.body[0]
        if (
            isinstance(a, cst.Assign)
            and len(a.targets) == 1
            and self_attr(a.targets[0].target) == attr
            and isinstance(a.value, cst.Name)
            and a.value.value == "None"
        ):
            return st
    return None


def _self_attrs_before(init: cst.FunctionDef, stop: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    for st in init.body.body:  # type: ignore[union-attr]
        if st is stop:
            break
        for n in all_nodes(st):
            if isinstance(n, cst.AssignTarget):
                a = self_attr(n.target)
                if a is not None:
                    out.add(a)
    return out


def _not_in_init(
    ctx: FixContext,
    e: cst.BaseExpression,
    attrs: set[str],
    fn: cst.FunctionDef,
    init: cst.FunctionDef,
) -> str | None:
    """The first part of ``e`` that ``__init__`` cannot evaluate where the layer is built
    (a local of ``fn``, ``self.X`` not set before), or None."""
    if number_expr(e) or isinstance(e, (cst.SimpleString, cst.Integer, cst.Float)):
        return None
    local = set(bound_names(fn)) | {p.name.value for p in fn.params.params}
    init_names = set(bound_names(init)) | {p.name.value for p in init.params.params}
    for n in all_nodes(e):
        if (attr := self_attr(n)) is not None:
            if attr not in attrs:
                return ctx.code(n).strip()
        elif isinstance(n, cst.Name):
            p = ctx.parent(n)
            if isinstance(p, cst.Attribute) and p.attr is n:
                continue
            if isinstance(p, cst.Arg) and p.keyword is n:
                continue
            if n.value == "self":
                continue
            if n.value in local or n.value in init_names:
                return n.value
        elif isinstance(n, (cst.Call, cst.Lambda)) and n is not e:
            return ctx.code(n).strip()[:40]
    return None


def _per_key(
    ctx: FixContext,
    call: cst.Call,
    assign: cst.Assign,
    tgt: cst.Subscript,
    lazy: str,
    dim: int,
) -> Rewrite | NoFix:
    """Per-key heads built on first use, the keys iterated from an attribute set in
    ``__init__``::

        for task in self.tasks:
            if task not in self.heads:
                self.heads[task] = nn.Linear(h.shape[-1], 3)
            outs.append(self.heads[task](h))

    -> ``self.heads = nn.ModuleDict({task: nn.LazyLinear(3) for task in self.tasks})`` in
    ``__init__`` (in place of ``nn.ModuleDict()``), the ``if`` removed. Each head draws its
    weights at its first call, in the loop's order, as the original drew them when it built
    the head just before calling it."""
    holder = self_attr(tgt.value)
    assert holder is not None
    why = f"a layer per key of `self.{holder}` is built on first use"
    if len(tgt.slice) != 1 or not isinstance(tgt.slice[0].slice, cst.Index):
        return NoFix(f"{why}: {_RECIPE}")
    key = tgt.slice[0].slice.value
    line = ctx.statement(assign)
    guard = ctx.parent(ctx.parent(line)) if line is not None else None  # type: ignore[arg-type]
    loop = ctx.parent(ctx.parent(guard)) if guard is not None else None  # type: ignore[arg-type]
    if (
        not isinstance(key, cst.Name)
        or not isinstance(guard, cst.If)
        or guard.orelse is not None
        or not _not_in_test(guard.test, key.value, holder)
        or not isinstance(guard.body, cst.IndentedBlock)
        or len(guard.body.body) != 1
        or not isinstance(loop, cst.For)
        or not isinstance(loop.target, cst.Name)
        or loop.target.value != key.value
        or self_attr(loop.iter) is None
    ):
        return NoFix(
            f"{why}, not under `if key not in self.{holder}:` in a loop over keys on `self`: "
            f"{_RECIPE}"
        )
    keys_attr = self_attr(loop.iter)
    klass = ctx.enclosing(loop, cst.ClassDef)
    fn = ctx.function(loop)
    if klass is None or fn is None:
        return NoFix("the heads are not built in a method")
    init = next(
        (
            s
            for s in klass.body.body  # type: ignore[union-attr]
            if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
        ),
        None,
    )
    if init is None:
        return NoFix(f"the class has no `__init__` to build the heads in: {_RECIPE}")
    src = _size_source(call.args[0].value, dim) if call.args and not call.args[0].keyword else None
    if src is None:
        return NoFix(f"{why}, not from the input's size: {_RECIPE}")
    empty = None
    for st in init.body.body:  # type: ignore[union-attr]
        if (
            isinstance(st, cst.SimpleStatementLine)
            and len(st.body) == 1
            and isinstance(st.body[0], cst.Assign)
            and len(st.body[0].targets) == 1
            and self_attr(st.body[0].targets[0].target) == holder
        ):
            v = st.body[0].value
            if (
                isinstance(v, cst.Call)
                and not v.args
                and (getattr(v.func, "attr", None) or v.func).value == "ModuleDict"  # type: ignore[union-attr]
            ):
                empty = st
    if empty is None:
        return NoFix(f"`__init__` does not set `self.{holder} = nn.ModuleDict()`: {_RECIPE}")
    before = _self_attrs_before(init, empty)
    if keys_attr not in before:
        return NoFix(f"`self.{keys_attr}` is not set in `__init__` before the heads")
    for a in call.args[1:]:
        bad = _not_in_init(ctx, a.value, before, fn, init)
        if bad is not None:
            return NoFix(f"`{bad}` is not known in `__init__`: {_RECIPE}")
    # the keys are set once, in __init__; the heads are only tested, built and called on `src`
    for n in all_nodes(klass):
        if not isinstance(n, cst.Attribute):
            continue
        name = self_attr(n)
        where = ctx.function(n)
        if name == keys_attr and where is not init and n is not loop.iter:
            return NoFix(f"`self.{keys_attr}` is also used outside the loop over it")
        if name != holder or where is init:
            continue
        p = ctx.parent(n)
        if any(a is guard.test for a in ctx.ancestors(n)) or (p is tgt):
            continue
        q = ctx.parent(p) if isinstance(p, cst.Subscript) else None
        if (
            isinstance(p, cst.Subscript)
            and isinstance(q, cst.Call)
            and q.func is p
            and len(q.args) == 1
            and _same(q.args[0].value, src)
            and isinstance(ctx.parent(ctx.statement(q) or q), cst.IndentedBlock)
            and ctx.parent(ctx.parent(ctx.statement(q) or q)) is loop  # type: ignore[arg-type]
        ):
            continue
        stmt = ctx.statement(n)
        what = ctx.code(stmt).strip().splitlines()[0][:40] if stmt is not None else holder
        return NoFix(f"`self.{holder}` is also used in `{what}`: {_RECIPE}")
    f = call.func
    new_func = (
        f.with_changes(attr=cst.Name(lazy)) if isinstance(f, cst.Attribute) else cst.Name(lazy)
    )
    rest = list(call.args[1:])
    kept = [*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if rest else []
    built = call.with_changes(func=new_func, args=kept)
    mdict = empty.body[0].value  # type: ignore[attr-defined]
    comp = cst.DictComp(
        key=cst.Name(key.value),
        value=built,
        for_in=cst.CompFor(target=cst.Name(key.value), iter=loop.iter),
    )
    new_init = empty.body[0].with_changes(value=mdict.with_changes(args=[cst.Arg(comp)]))  # type: ignore[attr-defined]
    return Rewrite(
        title=f"build a `{lazy}` per key of `self.{keys_attr}` in `__init__` "
        f"(`nn.ModuleDict({{k: nn.{lazy}(...) for k in self.{keys_attr}}})`): each infers the input size "
        "and draws its weights at its first call, as before; the `if` goes",
        changes=[(empty.body[0], new_init), (guard, cst.RemovalSentinel.REMOVE)],
    )


def _not_in_test(test: cst.BaseExpression, key: str, holder: str) -> bool:
    """``key not in self.<holder>``."""
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == key
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.NotIn)
        and self_attr(test.comparisons[0].comparator) == holder
    )
