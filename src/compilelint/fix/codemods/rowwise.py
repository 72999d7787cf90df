"""Steps that act on each row of a tensor independently: the one definition of "row-wise"
that the masked rewrites ask where they would otherwise ask "elementwise only" (issue 22,
branch fix22r).

A **row** of ``x`` is ``x[i_0, ..., i_k]`` for a position of a mask ``m`` over the leading
dims of ``x`` (``m.dim() == x.dim() - 1``: the selection ``x[m]`` is ``[N, D]``). A step ``f``
is row-wise when each output row is computed from the same input row alone and the rank is
kept, so it commutes with the selection: ``f(x[m]) == f(x)[m]``. A masked rewrite can then keep
the full tensor through ``f`` and apply the mask where the value is reduced (the rows the mask
leaves out are computed too, and dropped there). The table:

==========================================  ========  ==========================================
step                                        kind      condition
==========================================  ========  ==========================================
``F.relu/gelu/silu/mish/elu/...``,          elem      one tensor argument, other arguments
``torch.tanh/sigmoid``                                numbers (acts on each element)
``F.linear(e, W[, b])``, ``e @ W``          mix       ``W``, ``b`` free of the flow (no mask)
``F.softmax/log_softmax(e, dim=-1)``,       mix       over the last dim only
``e.softmax(-1)``, ``F.normalize(e, dim=-1)``
``self.m(e)``: ``nn.Linear``,               mix       ``self.m`` bound once, in ``__init__``;
``nn.LayerNorm(n)``/``nn.RMSNorm(n)``                 ``n`` one size (a literal or a name), so
(``n`` one size), ``nn.Softmax(dim=-1)``,             the norm is over the last dim
``nn.LogSoftmax(dim=-1)``
``self.m(e)``: activations (``nn.GELU``, ...),  elem  as above
``nn.Identity``
``self.m(e)``: ``nn.Sequential(...)``       mix/elem  every layer row-wise (mix if one mixes)
``self.m(e)``: a class of this file         mix/elem  its ``forward(self, x)`` binds names only
                                                      to row-wise steps of ``x``, earlier names
                                                      and numbers (``+ - *`` of two of them:
                                                      a residual), and returns one of them
==========================================  ========  ==========================================

"elem" steps act on each element, so they commute with any mask; "mix" steps combine the
elements of a row, so they commute with a selection only when the mask selects rows. A rewrite
that keeps a "mix" step needs that fact: from torch (a cross-entropy takes the rows as its
``[N, C]`` input) or stated where the full tensor is read (``m.view(x.shape[:-1] + (1,))``
raises for a mask of another size than ``x``'s leading dims, an element mask among them; one
of another shape and the same size, the original ``x[m]`` rejected; the shapes are static under
dynamo).
Dropout is not in the table: in training its draws depend on the tensor's size.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import number_expr, side_effect
from compilelint.fix.context import FixContext
from compilelint.static.analysis.walker import self_attr

ELEM = "elem"
MIX = "mix"

# F.f(x) / torch.f(x) / x.f() acting on each element (other arguments numbers)
_ELEM_FUNCS = frozenset(
    {
        "relu",
        "relu6",
        "gelu",
        "silu",
        "mish",
        "elu",
        "selu",
        "celu",
        "leaky_relu",
        "softplus",
        "hardswish",
        "hardsigmoid",
        "tanh",
        "sigmoid",
        "logsigmoid",
    }
)
# F.f(x, dim=-1): combine the elements of the last dim
_LAST_DIM_FUNCS = frozenset({"softmax", "log_softmax", "normalize"})
_ELEM_MODULES = frozenset(
    {
        "ReLU",
        "ReLU6",
        "GELU",
        "SiLU",
        "Mish",
        "ELU",
        "SELU",
        "CELU",
        "LeakyReLU",
        "Softplus",
        "Hardswish",
        "Hardsigmoid",
        "Tanh",
        "Sigmoid",
        "LogSigmoid",
        "Identity",
    }
)
_NORM_MODULES = frozenset({"LayerNorm", "RMSNorm"})
_LAST_DIM_MODULES = frozenset({"Softmax", "LogSoftmax"})


def _minus_one(e: cst.BaseExpression) -> bool:
    return (
        isinstance(e, cst.UnaryOperation)
        and isinstance(e.operator, cst.Minus)
        and isinstance(e.expression, cst.Integer)
        and e.expression.value == "1"
    )


def _functional(ctx: FixContext, func: cst.BaseExpression) -> str:
    """``f`` of ``F.f`` / ``torch.f`` / ``torch.nn.functional.f``, else ''."""
    head, _, last = ctx.code(func).strip().rpartition(".")
    if head in ("F", ctx.torch()) or head.endswith("nn.functional"):
        return last
    return ""


def _last_dim_args(args: list[cst.Arg], skip: int) -> bool:
    """The arguments after the first ``skip`` positional ones are exactly a ``dim`` of -1
    (positional or keyword; ``normalize``'s ``p=`` a number too)."""
    rest = list(args)[skip:]
    # `dtype=torch.float32` (softmax/log_softmax): the input cast first, each row alike
    rest = [a for a in rest if not _float_dtype(a)]
    dims = [a.value for a in rest if a.keyword is None or a.keyword.value == "dim"]
    others = [a for a in rest if a.keyword is not None and a.keyword.value not in ("dim", "p")]
    if any(a.star for a in args) or others or len(dims) != 1:
        return False
    if any(a.keyword is not None and not number_expr(a.value) for a in rest if a not in others):
        return False
    return _minus_one(dims[0])


_FLOAT_DTYPES = frozenset({"float", "float32", "float64", "double", "float16", "half", "bfloat16"})


def _float_dtype(a: cst.Arg) -> bool:
    """``dtype=torch.float32`` (a floating dtype of torch, by attribute)."""
    v = a.value
    return (
        a.keyword is not None
        and a.keyword.value == "dtype"
        and isinstance(v, cst.Attribute)
        and isinstance(v.value, cst.Name)
        and v.value.value == "torch"
        and v.attr.value in _FLOAT_DTYPES
    )


# reductions over the last dim that keep it (``keepdim=True``): one value per row
_KEEPDIM = frozenset({"sum", "mean", "var", "std", "amax", "amin", "norm", "logsumexp"})


def _keepdim_last(args: list[cst.Arg]) -> bool:
    """``(-1, keepdim=True)`` / ``(dim=-1, keepdim=True)`` (``unbiased=``/``correction=``
    numbers or booleans for ``var``/``std``)."""
    if any(a.star for a in args):
        return False
    kws = {a.keyword.value: a.value for a in args if a.keyword is not None}
    pos = [a.value for a in args if a.keyword is None]
    dims = [*pos, *([kws["dim"]] if "dim" in kws else [])]
    keep = kws.get("keepdim")
    if len(dims) != 1 or not _minus_one(dims[0]):
        return False
    if not (isinstance(keep, cst.Name) and keep.value == "True"):
        return False
    rest = set(kws) - {"dim", "keepdim"}
    return all(k in ("unbiased", "correction") and _number_or_flag(kws[k]) for k in rest)


def _number_or_flag(e: cst.BaseExpression) -> bool:
    return number_expr(e) or (isinstance(e, cst.Name) and e.value in ("True", "False"))


def _option(e: cst.BaseExpression) -> bool:
    """A number, or a string (a mode: ``approximate="tanh"``): never a tensor. Not a flag:
    ``inplace=True`` would write into the full tensor the rewrite keeps."""
    return number_expr(e) or isinstance(e, cst.SimpleString)


def _numbers_after(args: list[cst.Arg], skip: int) -> bool:
    return not any(a.star for a in args) and all(_option(a.value) for a in args[skip:])


def call_step(
    ctx: FixContext,
    call: cst.Call,
    e: cst.BaseExpression,
    free: object = None,
    weights: dict[str, cst.BaseExpression] | None = None,
) -> str | None:
    """The kind of the row-wise step ``call`` applies to its argument ``e`` (the value
    followed), or None when it is not one of the table's. ``free(x)``: whether an other
    operand (a weight, a bias) is free of the values followed (default: no side effect)."""

    def is_free(x: cst.BaseExpression) -> bool:
        if side_effect(x) is not None:
            return False
        return bool(free(x)) if callable(free) else True

    args = list(call.args)
    f = call.func
    if isinstance(f, cst.Attribute) and f.value is e:  # a method of e
        name = f.attr.value
        if name in _ELEM_FUNCS and _numbers_after(args, 0):
            return ELEM
        if name in ("softmax", "log_softmax") and _last_dim_args(args, 0):
            return MIX
        if name in _KEEPDIM and _keepdim_last(args):
            return MIX  # `t.mean(dim=-1, keepdim=True)`: one value per row, rank kept
        return None
    if not args or args[0].value is not e or args[0].keyword is not None or args[0].star:
        return None
    name = _functional(ctx, f)
    if name in _ELEM_FUNCS and _numbers_after(args, 1):
        return ELEM
    if name in _LAST_DIM_FUNCS and _last_dim_args(args, 1):
        return MIX
    if name == "linear" and 2 <= len(args) <= 3 and not any(a.keyword or a.star for a in args):
        ok = all(is_free(a.value) for a in args[1:]) and two_dim(ctx, args[1].value, weights)
        return MIX if ok else None
    if len(args) == 1 and self_attr(f) is not None:
        return module_kind(ctx, f)
    return None


def module_kind(ctx: FixContext, func: cst.BaseExpression) -> str | None:
    """The kind of ``self.X`` when the class binds it once, in ``__init__``, to a row-wise
    module (the table), else None."""
    v = _init_value(ctx, func)
    return None if v is None else constructed_kind(ctx, v, set())


def constructed_kind(ctx: FixContext, v: cst.BaseExpression, seen: set[str]) -> str | None:
    """The kind of the module ``v`` constructs (``nn.Linear(d, k)``, ``nn.Sequential(...)``,
    ``Block(d)`` of a class of this file), else None."""
    if not isinstance(v, cst.Call) or any(a.star for a in v.args):
        return None
    head, _, last = ctx.code(v.func).strip().rpartition(".")
    if head in ("nn", f"{ctx.torch()}.nn"):
        if last in _ELEM_MODULES:
            return ELEM if all(_option(a.value) for a in v.args) else None
        if last == "Linear":
            return MIX
        if last in _NORM_MODULES:
            pos = [a for a in v.args if a.keyword is None]
            if len(pos) != 1:
                return None
            size = pos[0].value
            return MIX if _one_size(size) else None
        if last in _LAST_DIM_MODULES:
            dims = [a.value for a in v.args if a.keyword is None or a.keyword.value == "dim"]
            return MIX if len(dims) == 1 and _minus_one(dims[0]) else None
        if last == "Sequential":
            kinds = [
                constructed_kind(ctx, a.value, seen) if a.keyword is None else None for a in v.args
            ]
            if not kinds or any(k is None for k in kinds):
                return None
            return MIX if MIX in kinds else ELEM
        return None
    if head or not isinstance(v.func, cst.Name):
        return None
    return class_kind(ctx, v.func.value, seen, v)


def _sequence(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Tuple, cst.List))


def class_kind(
    ctx: FixContext, name: str, seen: set[str], ctor: cst.Call | None = None
) -> str | None:
    """The kind of a module class ``name`` of this file whose ``forward(self, x)`` is row-wise
    in ``x`` by the same table (the module rule), else None."""
    if name in seen:
        return None
    cls = next(
        (s for s in ctx.module.body if isinstance(s, cst.ClassDef) and s.name.value == name),
        None,
    )
    if cls is None:
        return None
    fwd = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"]
    if len(fwd) != 1:
        return None
    fn = fwd[0]
    ps = fn.params
    if (
        len(ps.params) != 2
        or ps.star_arg is not cst.MaybeSentinel.DEFAULT
        or ps.star_kwarg is not None
        or ps.kwonly_params
        or ps.posonly_params
        or fn.decorators
    ):
        return None
    names = {ps.params[1].name.value}
    weights = _init_args(cls, ctor)
    kinds: list[str] = []
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    seen = seen | {name}
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            if i == 0 and _docstring(stmt):
                continue
            return None
        small = stmt.body[0]
        if i == 0 and _docstring(stmt):
            continue
        if isinstance(small, cst.Assign):
            if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                return None
            k = _expr_kind(ctx, small.value, names, seen, weights)
            if k is None:
                return None
            kinds.append(k)
            names.add(small.targets[0].target.value)
        elif isinstance(small, cst.Return) and i == len(body) - 1 and small.value is not None:
            k = _expr_kind(ctx, small.value, names, seen, weights)
            if k is None:
                return None
            kinds.append(k)
        else:
            return None
    if not body or not isinstance(body[-1], cst.SimpleStatementLine):
        return None
    if not isinstance(body[-1].body[0], cst.Return):
        return None
    return MIX if MIX in kinds else ELEM


def _docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString)
    )


def _expr_kind(
    ctx: FixContext,
    e: cst.BaseExpression,
    names: set[str],
    seen: set[str],
    weights: dict[str, cst.BaseExpression] | None = None,
) -> str | None:
    """The kind of ``e`` as a row-wise function of the rows ``names`` hold (a forward's
    input and the names bound from it), else None."""
    if isinstance(e, cst.Name):
        return ELEM if e.value in names else None
    if isinstance(e, cst.BinaryOperation):
        if isinstance(e.operator, cst.MatrixMultiply):
            left = _expr_kind(ctx, e.left, names, seen, weights)
            ok = _free_of(e.right, names) and two_dim(ctx, e.right, weights)
            return MIX if left is not None and ok else None
        if not isinstance(e.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            return None
        sides = [e.left, e.right]
        vec = [row_vector(ctx, s) for s in sides]
        if any(vec):  # `h + self.bias`, `h * self.gamma`: the same for every row
            rows = sides[1] if vec[0] else sides[0]
            return MIX if _expr_kind(ctx, rows, names, seen, weights) is not None else None
        ks = [None if number_expr(s) else _expr_kind(ctx, s, names, seen, weights) for s in sides]
        if any(k is None and not number_expr(s) for k, s in zip(ks, sides, strict=True)):
            return None
        if all(k is None for k in ks):
            return None
        return MIX if MIX in ks else ELEM
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
        return _expr_kind(ctx, e.expression, names, seen, weights)
    if isinstance(e, cst.Call):
        f = e.func
        inner: cst.BaseExpression | None = (
            f.value
            if isinstance(f, cst.Attribute) and not self_attr(f) and _functional(ctx, f) == ""
            else (e.args[0].value if e.args else None)
        )
        if inner is None:
            return None
        k_in = _expr_kind(ctx, inner, names, seen, weights)
        if k_in is None:
            return None
        if self_attr(f) is not None and len(e.args) == 1:
            k = module_kind(ctx, f)
            if k is None:
                k = _sub_module(ctx, f, seen)
        else:
            k = call_step(ctx, e, inner, lambda x: _free_of(x, names), weights)
        if k is None:
            return None
        return MIX if MIX in (k, k_in) else ELEM
    return None


def _sub_module(ctx: FixContext, func: cst.BaseExpression, seen: set[str]) -> str | None:
    """``self.X`` of a class bound once in ``__init__`` to a class of this file (its own
    module rule)."""
    attr = self_attr(func)
    cls = ctx.enclosing(func, cst.ClassDef)
    if attr is None or cls is None:
        return None
    vals = [
        node.value
        for meth in cls.body.body
        if isinstance(meth, cst.FunctionDef) and meth.name.value == "__init__"
        for node in _nodes(meth, cst.Assign)
        for t in node.targets
        if self_attr(t.target) == attr
    ]
    if len(vals) != 1:
        return None
    return constructed_kind(ctx, vals[0], seen)


def _free_of(e: cst.BaseExpression, names: set[str]) -> bool:
    """``e`` reads none of ``names`` and has no side effect (a weight: ``self.W``,
    ``self.W.t()``)."""
    if side_effect(e) is not None:
        return False
    return not any(isinstance(n, cst.Name) and n.value in names for n in _nodes(e, cst.Name))


def _nodes(node: cst.CSTNode, kind: type) -> list:  # type: ignore[type-arg]
    out: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, kind):
                out.append(n)
            return True

    node.visit(V())
    return out


_FILLS = frozenset({"zeros", "ones", "randn", "rand", "empty", "full"})


def row_vector(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """``self.X`` bound once, in ``__init__``, to ``nn.Parameter(torch.zeros(d))`` (``ones``,
    ``randn``, ``rand``, ``empty``; ``full(d, v)``) of one size: added to or multiplying rows,
    it broadcasts over the last dim, the same for every row (a bias, a layer scale)."""
    v = _init_value(ctx, e)
    if v is None:
        return False
    if not isinstance(v, cst.Call) or not v.args or any(a.star for a in v.args):
        return False
    head, _, last = ctx.code(v.func).strip().rpartition(".")
    if last != "Parameter" or head not in ("nn", f"{ctx.torch()}.nn"):
        return False
    inner = v.args[0].value
    if not isinstance(inner, cst.Call) or any(a.star for a in inner.args):
        return False
    ihead, _, ilast = ctx.code(inner.func).strip().rpartition(".")
    if ihead != ctx.torch() or ilast not in _FILLS:
        return False
    pos = [a.value for a in inner.args if a.keyword is None]
    want = 2 if ilast == "full" else 1
    if len(pos) != want:
        return False
    size = pos[0]
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute):
        # `weight.size(0)`: one size
        return size.func.attr.value == "size" and len(size.args) == 1
    if isinstance(size, cst.Subscript) and isinstance(size.value, cst.Attribute):
        return size.value.attr.value == "shape" and len(size.slice) == 1  # `w.shape[0]`
    return _one_size(size)


def _one_size(e: cst.BaseExpression) -> bool:
    """A literal, a name or an attribute (``dim``, ``config.hidden_size``) taken for one size;
    not ``t.shape`` (all of a tensor's sizes) nor a tuple or list."""
    if isinstance(e, cst.Attribute) and e.attr.value in ("shape", "normalized_shape"):
        return False
    return isinstance(e, (cst.Integer, cst.Name, cst.Attribute))


def _init_args(cls: cst.ClassDef, ctor: cst.Call | None) -> dict[str, cst.BaseExpression]:
    """``__init__``'s parameter names mapped to the arguments of the construction ``ctor``
    (positional and keyword; none where it unpacks)."""
    if ctor is None or any(a.star for a in ctor.args):
        return {}
    init = next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )
    if init is None:
        return {}
    params = [p.name.value for p in init.params.params][1:]
    out: dict[str, cst.BaseExpression] = {}
    pos = [a.value for a in ctor.args if a.keyword is None]
    for name, v in zip(params, pos, strict=False):
        out[name] = v
    for a in ctor.args:
        if a.keyword is not None and a.keyword.value in params:
            out[a.keyword.value] = a.value
    return out


_TWO_DIM_MODULES = frozenset({"Linear", "Embedding", "Bilinear"})


def two_dim(
    ctx: FixContext,
    e: cst.BaseExpression,
    weights: dict[str, cst.BaseExpression] | None = None,
    depth: int = 0,
) -> bool:
    """``e`` is a two-dimensional weight, so that ``rows @ e`` and ``F.linear(rows, e)`` keep
    the rows' rank: ``self.W`` bound once, in ``__init__``, to ``nn.Parameter(torch.randn(a,
    b))`` (two sizes), to an ``__init__`` argument that is one (``weights``: the arguments of
    the construction), ``self.lin.weight`` of an ``nn.Linear``/``nn.Embedding``, or ``.t()``/
    ``.T``/``.mT``/``.transpose(0, 1)`` of one. Not a vector: ``rows @ v`` drops the last
    dim."""
    if depth > 6:
        return False
    if isinstance(e, cst.Attribute) and e.attr.value in ("T", "mT"):
        return two_dim(ctx, e.value, weights, depth + 1)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
        name = e.func.attr.value
        args = [ctx.code(a.value).strip() for a in e.args]
        if (name == "t" and not args) or (
            name == "transpose" and args in (["0", "1"], ["1", "0"], ["-1", "-2"], ["-2", "-1"])
        ):
            return two_dim(ctx, e.func.value, weights, depth + 1)
        return False
    if isinstance(e, cst.Name) and weights and e.value in weights:
        return two_dim(ctx, weights[e.value], None, depth + 1)
    if isinstance(e, cst.Attribute) and e.attr.value == "weight" and self_attr(e.value):
        v = _init_value(ctx, e.value)
        if not isinstance(v, cst.Call):
            return False
        head, _, last = ctx.code(v.func).strip().rpartition(".")
        return last in _TWO_DIM_MODULES and head in ("nn", f"{ctx.torch()}.nn")
    if self_attr(e) is None:
        return False
    v = _init_value(ctx, e)
    if isinstance(v, cst.Name):
        arg = weights.get(v.value) if weights else None
        return arg is not None and two_dim(ctx, arg, None, depth + 1)
    if not isinstance(v, cst.Call) or not v.args or any(a.star for a in v.args):
        return False
    head, _, last = ctx.code(v.func).strip().rpartition(".")
    if last != "Parameter" or head not in ("nn", f"{ctx.torch()}.nn"):
        return False
    inner = v.args[0].value
    if not isinstance(inner, cst.Call) or any(a.star for a in inner.args):
        return False
    ihead, _, ilast = ctx.code(inner.func).strip().rpartition(".")
    pos = [a.value for a in inner.args if a.keyword is None]
    return (
        ihead == ctx.torch()
        and ilast in _FILLS - {"full"}
        and len(pos) == 2
        and all(_one_size(p) or isinstance(p, cst.Call) for p in pos)
    )


def _init_value(ctx: FixContext, e: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value ``self.X`` (``e``) is bound to, once, in its class's ``__init__`` and nowhere
    else; None otherwise."""
    attr = self_attr(e)
    cls = ctx.enclosing(e, cst.ClassDef)
    if attr is None or cls is None:
        return None
    vals: list[tuple[str, cst.BaseExpression]] = []
    for meth in cls.body.body:
        if isinstance(meth, cst.FunctionDef):
            for node in _nodes(meth, cst.Assign):
                for t in node.targets:
                    if self_attr(t.target) == attr:
                        vals.append((meth.name.value, node.value))
            for node in _nodes(meth, cst.AugAssign):
                if self_attr(node.target) == attr:
                    return None
    if len(vals) != 1 or vals[0][0] != "__init__":
        return None
    return vals[0][1]
