"""Sparse Mixture-of-Experts dispatch -> dense dispatch.

A loop over experts that picks the tokens routed to each one with a data-dependent shape
(``idx, top = torch.where(expert_mask[e])`` as in HF Mixtral/Qwen2-MoE, ``rows =
(route == e).nonzero(as_tuple=True)[0]``, ``x[route == e]`` as in Switch/DeepSeek), runs the
expert on those rows and scatters the result back (``out.index_add_(0, top, y)``,
``out[mask] += y``, ``out[mask] = y``) breaks the graph once per expert. When the expert acts on
each token alone (``nn.Linear``, activations, ``LayerNorm``, ``nn.Sequential`` of these, a
module of this file whose ``forward`` is only those and elementwise arithmetic), running it on
every token and keeping only the routed rows gives the same values:

- ``t[sel]`` -> ``t``, ``t[None, sel]`` -> ``t[None, :]``, ``t[sel, j]`` -> ``t[:, j]``;
- the pairs of ``idx, top = torch.where(M)`` (``M``: slot x token): ``w[top, idx]`` becomes the
  per-token weight ``(w * M.t()).sum(-1)`` (zero for a token not routed to the expert); exact
  because the weight only multiplies the expert's output, which is then summed per token;
- ``out.index_add_(0, top, y)`` -> ``out.add_(torch.where(m[..., None], y, 0))``,
  ``out[m] += y`` -> ``out += torch.where(m[..., None], y, 0)``, ``out[m] = y`` ->
  ``out = torch.where(m[..., None], y, out)`` (``m``: the token mask);
- an empty-expert skip (``if top.shape[0] == 0: continue``, ``if mask.any():``) goes: with no
  routed token the dense step adds zero / keeps ``out``.

The cost: every expert runs on every token, E/k times the expert FLOPs of the sparse dispatch
(E experts, k chosen per token): no breaks, usually faster on a GPU for small and medium E;
measure with ``compilelint bench``. Unsafe: an expert output that is infinite or NaN at a row
not routed to it is dropped by ``torch.where`` in the forward pass, but the gradient flows
through the whole expert. Where the expert is not known to act per token (another module, a
``Dropout`` that draws other masks, a call with more arguments), or the selected rows are used
for anything but the scatter, the rewrite is a proposal with that reason.

The sorted-split form (megablocks / st-moe): ``order = ids.argsort()``, ``x_sorted = x[order]``,
``for e, chunk in enumerate(x_sorted.split(torch.bincount(ids).tolist())):
outs.append(expert_e(chunk))`` then ``torch.cat(outs)`` (or running offsets ``start : start +
n``). When the chunks are provably the rows of ``x[order]`` grouped by ``ids[order]`` (``order``
sorts ``ids`` ascending; the sizes count the same ``ids``), the loop becomes the dense form on
the sorted rows, ``sum(torch.where((ids[order] == e)[:, None], expert(x_sorted), 0) for e,
expert in enumerate(experts))``, and the un-sort and weighting after it stay as written
(``sorted_dispatch``).

The per-expert count form (DeepSeek-V3 ``MoE.forward``): ``counts = bincount(ids).tolist()``
read only by an empty-expert skip (``if counts[i] == 0: continue``, ``for e, n in
enumerate(load.tolist()): if n == 0: continue``): the counts are dead once the loop is dense, so
they go with the skip (``_Counts``, ``count_dispatch``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import (
    all_nodes,
    atom,
    bound_names,
    last_name,
    leading_lines,
    names_in,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.static.analysis.walker import self_attr

# modules and functions that act on each row (token) alone
ROWWISE_LAYERS = frozenset(
    {
        "Linear",
        "ReLU",
        "ReLU6",
        "GELU",
        "SiLU",
        "Tanh",
        "Sigmoid",
        "Identity",
        "LeakyReLU",
        "ELU",
        "SELU",
        "CELU",
        "Mish",
        "Softplus",
        "Softsign",
        "Hardswish",
        "Hardsigmoid",
        "Hardtanh",
        "LayerNorm",
        "RMSNorm",
    }
)
ROWWISE_FUNCS = frozenset(
    {
        "relu",
        "relu6",
        "gelu",
        "silu",
        "tanh",
        "sigmoid",
        "leaky_relu",
        "elu",
        "selu",
        "celu",
        "mish",
        "softplus",
        "softsign",
        "hardswish",
        "hardsigmoid",
        "exp",
        "neg",
        "abs",
        "square",
        "sqrt",
        "rsqrt",
    }
)
# methods on per-token values that keep rows apart (dtype casts, trailing-dim views)
_ROW_METHODS = frozenset(
    {
        "to",
        "type_as",
        "float",
        "half",
        "bfloat16",
        "double",
        "contiguous",
        "clone",
        "reshape",
        "view",
        "unsqueeze",
        "squeeze",
        "mul",
        "add",
        "relu",
        "sigmoid",
        "tanh",
    }
)
# the roots of function calls (not methods of a tensor): `F.linear(x, W)`, `torch.softmax(x, -1)`
_FUNC_ROOTS = frozenset({"F", "nn.functional", "torch.nn.functional", "torch"})
_CREATORS = frozenset(
    {
        "zeros",
        "zeros_like",
        "empty",
        "empty_like",
        "new_zeros",
        "new_empty",
        "full",
        "full_like",
        "clone",  # a copy, never a view: writing into it changes no other tensor
    }
)


# transformers' `ACT2FN[name]`: every entry is an elementwise activation (gelu variants, silu,
# relu, relu2, tanh, sigmoid, mish, laplace, xielu, linear, prelu over the last dimension)
_ACT_TABLES = frozenset({"ACT2FN", "ACT2CLS"})
# elementwise tensor methods (the rows' own values only)
_ELEMENTWISE_METHODS = frozenset(
    {
        "pow",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "abs",
        "neg",
        "square",
        "sin",
        "cos",
        "clamp",
        "clamp_min",
        "clamp_max",
        "sub",
        "div",
        "silu",
        "gelu",
        "reciprocal",
        "nan_to_num",
    }
)
# reductions and normalisations that act within a row when taken over the last dimension
_LAST_DIM_OPS = frozenset(
    {
        "sum",
        "mean",
        "amax",
        "amin",
        "softmax",
        "log_softmax",
        "norm",
        "normalize",
        "logsumexp",
        "prod",
        "var",
        "std",
        "chunk",
        "split",
        "tensor_split",
        "unbind",
        "cumsum",
    }
)


class _Reject(Exception):
    """The loop is an expert loop, but the dense form is not provably the same."""


# ---------------------------------------------------------------------------- small helpers
def _attr(call: cst.CSTNode) -> str:
    return last_name(call.func) if isinstance(call, cst.Call) else ""


def _through(e: cst.BaseExpression, t: cst.CSTTransformer) -> cst.BaseExpression:
    """``e`` as ``t`` rewrites it (an expression transformer gives an expression)."""
    return cast(cst.BaseExpression, e.visit(t))


def _code(e: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(e).strip()


def _single_index(sub: cst.Subscript) -> cst.BaseExpression | None:
    if len(sub.slice) != 1:
        return None
    s = sub.slice[0].slice
    return s.value if isinstance(s, cst.Index) and s.star is None else None


def _is_zero(e: cst.BaseExpression) -> bool:
    return isinstance(e, cst.Integer) and e.value == "0"


def _is_bool_expr(e: cst.BaseExpression) -> bool:
    """A boolean mask by its form: a comparison, ``.any``/``.all``/``.bool``, ``~``, ``&``,
    ``|``, ``logical_*``."""
    if isinstance(e, cst.Comparison):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return _is_bool_expr(e.expression)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr)):
        return _is_bool_expr(e.left) and _is_bool_expr(e.right)
    a = _attr(e)
    return a in ("any", "all", "bool", "isin", "eq", "ne", "gt", "lt", "ge", "le") or (
        a.startswith("logical_")
    )


# ---------------------------------------------------------------------------- row-wise modules
class _Rows:
    """Whether a module (by its constructor in ``__init__``) acts on each row alone."""

    def __init__(self, ctx: FixContext) -> None:
        self.ctx = ctx
        self.classes = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.ClassDef)}
        self.done: dict[str, str | None] = {}

    @staticmethod
    def init_of(klass: cst.ClassDef, attr: str) -> list[cst.BaseExpression]:
        out: list[cst.BaseExpression] = []
        for st in klass.body.body:
            if isinstance(st, cst.FunctionDef) and st.name.value == "__init__":
                for node in all_nodes(st):
                    if isinstance(node, cst.Assign) and len(node.targets) == 1:
                        if self_attr(node.targets[0].target) == attr:
                            out.append(node.value)
        return out

    def ctor(self, e: cst.BaseExpression) -> str | None:
        """None when the module built by ``e`` is row-wise, else the reason it is not known to
        be."""
        if isinstance(e, cst.Subscript) and last_name(e.value) in _ACT_TABLES:
            return None  # transformers' table of activations: each one elementwise
        if (
            isinstance(e, cst.Attribute)
            and e.attr.value in ROWWISE_FUNCS
            and _code(e.value) in _FUNC_ROOTS
        ):
            return None  # `self.act_fn = F.silu`: the function itself, elementwise
        if not isinstance(e, cst.Call):
            return f"`{_code(e)}` is not a module constructor this rewrite knows"
        name = last_name(e.func)
        if name in ROWWISE_LAYERS:
            return None
        if name == "Dropout":
            return "`nn.Dropout` draws a new mask per call: the dense dispatch draws other ones"
        if name == "Sequential":
            for a in e.args:
                why = self.ctor(a.value)
                if why is not None:
                    return why
            return None
        if isinstance(e.func, cst.Name) and name in self.classes:
            return self.klass(name)
        return f"`{_code(e.func)}` is not known to act on each token alone"

    def klass(self, name: str) -> str | None:
        if name in self.done:
            return self.done[name]
        self.done[name] = f"`{name}` calls itself"
        self.done[name] = why = self._klass(self.classes[name])
        return why

    def _klass(self, klass: cst.ClassDef) -> str | None:
        fwd = next(
            (
                s
                for s in klass.body.body
                if isinstance(s, cst.FunctionDef) and s.name.value == "forward"
            ),
            None,
        )
        if fwd is None:
            return f"`{klass.name.value}` has no `forward` in this file"
        params = [p.name.value for p in fwd.params.params]
        if (
            len(params) != 2
            or isinstance(fwd.params.star_arg, cst.Param)
            or fwd.params.kwonly_params
            or fwd.params.star_kwarg is not None
        ):
            return f"`{klass.name.value}.forward` takes more than one input"
        local = {params[1]}
        for st in fwd.body.body:
            if not isinstance(st, cst.SimpleStatementLine):
                return f"`{klass.name.value}.forward` holds a compound statement"
            for small in st.body:
                if isinstance(small, cst.Assign) and all(
                    isinstance(t.target, cst.Name) for t in small.targets
                ):
                    why = self.expr(klass, small.value, local)
                    if why is not None:
                        return why
                    local |= {t.target.value for t in small.targets}  # type: ignore[attr-defined]
                elif isinstance(small, cst.Return) and small.value is not None:
                    return self.expr(klass, small.value, local)
                elif not isinstance(small, (cst.Pass, cst.Expr)) or (
                    isinstance(small, cst.Expr) and not isinstance(small.value, cst.SimpleString)
                ):
                    return f"`{_code(small)}` in `{klass.name.value}.forward`"
        return f"`{klass.name.value}.forward` returns nothing"

    def expr(self, klass: cst.ClassDef, e: cst.BaseExpression, local: set[str]) -> str | None:
        if isinstance(e, cst.Name):
            return None if e.value in local else f"`{e.value}` in `{klass.name.value}.forward`"
        if isinstance(e, (cst.Integer, cst.Float)):
            return None
        if isinstance(e, cst.BinaryOperation) and not isinstance(e.operator, cst.MatrixMultiply):
            return self.expr(klass, e.left, local) or self.expr(klass, e.right, local)
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
            return self.expr(klass, e.expression, local)
        if isinstance(e, cst.Call):
            args = [a.value for a in e.args if a.keyword is None]
            f = e.func
            attr = self_attr(f)
            if attr:
                ctors = self.init_of(klass, attr)
                if len(ctors) != 1:
                    return f"`self.{attr}` is not built once in `{klass.name.value}.__init__`"
                why = self.ctor(ctors[0])
                if why is None and len(args) == 1 and len(e.args) == 1:
                    return self.expr(klass, args[0], local)
                return why or f"`{_code(e)}` takes more than one input"
            name = last_name(f)
            if name in ROWWISE_FUNCS and args:
                if isinstance(f, cst.Attribute) and _code(f.value) not in (
                    "F",
                    "torch",
                    "nn.functional",
                    "torch.nn.functional",
                    self.ctx.torch(),
                ):
                    return self.expr(klass, f.value, local)
                return self.expr(klass, args[0], local)
            if isinstance(f, cst.Attribute) and name in _ROW_METHODS - {"reshape", "view"}:
                return self.expr(klass, f.value, local)
        return (
            f"`{_code(e)}` in `{klass.name.value}.forward` is not known to act on each token alone"
        )


def _experts_rowwise(
    ctx: FixContext, klass: cst.ClassDef, attr: str, rows: _Rows | None = None
) -> str | None:
    """None when every expert of ``self.<attr>`` (a ``ModuleList`` built in ``__init__``) acts
    on each row alone, else the reason it is not known to."""
    rows = rows or _Rows(ctx)
    ctors = _Rows.init_of(klass, attr)
    if len(ctors) != 1 or not isinstance(ctors[0], cst.Call) or not ctors[0].args:
        return f"`self.{attr}` is not built once in `__init__`"
    items = ctors[0].args[0].value
    if isinstance(items, (cst.ListComp, cst.GeneratorExp)):
        elts = [items.elt]
    elif isinstance(items, (cst.List, cst.Tuple)):
        elts = [el.value for el in items.elements]
    else:
        return f"the experts of `self.{attr}` are not built in `__init__` where they can be read"
    for e in elts:
        why = rows.ctor(e)  # type: ignore[arg-type]
        if why is not None:
            return why
    return None


# ---------------------------------------------------------------------------- the loop
class _Sel:
    """What the loop selects tokens with."""

    def __init__(self) -> None:
        self.index: dict[str, cst.BaseExpression] = {}  # 1-d index name -> the mask it comes from
        self.pairs: dict[str, tuple[str, cst.BaseExpression]] = {}  # token idx -> (slot idx, M)
        self.masks: dict[str, cst.BaseExpression] = {}  # bool mask name -> its expression
        self.used: list[str] = []  # the token masks (code) of every selection, to be one
        self.weighted = False  # a pair weight `w[top, idx]` became a per-token weight
        self.pair_sums = False  # the pairs' rows are scatter-added
        self.token_first: set[str] = set()  # token idx of `tok, slot = torch.where(M)`, M: T x k

    def orient(self, body: cst.CSTNode) -> None:
        """``idx, top = torch.where(M)`` is (slot, token) for HF's ``M`` (slot x token), but
        (token, slot) for DeepSeek's ``indices == i`` (token x slot): the token index is the one
        that selects rows (``x[idx]``, ``index_add_(0, idx, ...)``)."""

        def rows_by(name: str) -> bool:
            for n in all_nodes(body):
                if isinstance(n, cst.Subscript):
                    key = _single_index(n)
                    if isinstance(key, cst.Name) and key.value == name:
                        return True
                if isinstance(n, cst.Call) and _attr(n) == "index_add_" and len(n.args) == 3:
                    a = n.args[1].value
                    if isinstance(a, cst.Name) and a.value == name:
                        return True
            return False

        for tok, (slot, m) in list(self.pairs.items()):
            if rows_by(slot) and not rows_by(tok):
                del self.pairs[tok]
                self.pairs[slot] = (tok, m)
                self.token_first.add(slot)

    def names(self) -> set[str]:
        return (
            set(self.index)
            | set(self.pairs)
            | {s for s, _ in self.pairs.values()}
            | set(self.masks)
        )


def _index_def(ctx: FixContext, small: cst.BaseSmallStatement, sel: _Sel) -> bool:
    """Record ``idx, top = torch.where(M)``, ``top = torch.where(m)[0]``, ``(top,) =
    torch.where(m)``, ``top = m.nonzero(as_tuple=True)[0]``, ``top = m.nonzero().squeeze(-1)``
    (also ``.flatten()``/``.view(-1)``), ``top = torch.nonzero(m)...``."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return False
    tgt, v = small.targets[0].target, small.value
    torch = ctx.torch()

    def mask_of(call: cst.BaseExpression) -> cst.BaseExpression | None:
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return None
        pos = [a.value for a in call.args if a.keyword is None]
        f = call.func
        if f.attr.value == "where" and _code(f.value) == torch and len(call.args) == 1:
            return pos[0]
        if f.attr.value == "nonzero":
            if _code(f.value) == torch:
                return pos[0] if len(pos) == 1 else None
            return f.value if not pos else None
        return None

    if isinstance(tgt, cst.Tuple) and isinstance(v, cst.Call):
        m = mask_of(v)
        names = [el.value for el in tgt.elements]
        if m is None or not all(isinstance(n, cst.Name) for n in names):
            return False
        if len(names) == 2:
            sel.pairs[names[1].value] = (names[0].value, m)  # type: ignore[attr-defined]
            return True
        if len(names) == 1:
            sel.index[names[0].value] = m  # type: ignore[attr-defined]
            return True
        return False
    if not isinstance(tgt, cst.Name):
        return False
    m = None
    cap = _capacity_cut(ctx, small, v)
    if cap is not None:
        # `top = torch.where(m)[0][:c]`: the first `c` tokens routed (slice rules: a negative
        # `c` drops the last ones), as a token mask: the running count of routed tokens
        base = mask_of(cap[0])
        if base is None:
            return False
        b = base if _is_bool_expr(base) else cst.parse_expression(f"({_code(base)} != 0)")
        m = template(
            "(__m__ & (__m__.long().cumsum(0) <= __m__.sum() * (__c__ < 0) + __c__))",
            m=atom(b),
            c=atom(cap[1]),
        )
    elif isinstance(v, cst.Subscript) and _code(v.slice[0]) == "0" and len(v.slice) == 1:
        m = mask_of(v.value)
    elif isinstance(v, cst.Call) and _attr(v) in ("squeeze", "flatten", "view", "reshape"):
        if isinstance(v.func, cst.Attribute):
            m = mask_of(v.func.value)
    if m is None:
        return False
    sel.index[tgt.value] = m
    return True


def _capacity_cut(
    ctx: FixContext, small: cst.BaseSmallStatement, v: cst.BaseExpression
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(the indices call, ``c``) of ``call[0][:c]`` (``torch.where(m)[0][:c]``), where ``c``
    is a number or a name bound only before ``small`` and outside the loops around it (the
    mask that replaces the indices is read later in the body: it must see the same ``c``)."""
    if not (isinstance(v, cst.Subscript) and len(v.slice) == 1):
        return None
    s = v.slice[0].slice
    inner = v.value
    if not (
        isinstance(s, cst.Slice)
        and s.lower is None
        and s.step is None
        and s.upper is not None
        and isinstance(inner, cst.Subscript)
        and len(inner.slice) == 1
        and _code(inner.slice[0]) == "0"
    ):
        return None
    c = s.upper
    if isinstance(c, cst.Integer):
        return inner.value, c
    fn = ctx.function(small)
    if not isinstance(c, cst.Name) or fn is None:
        return None
    line = ctx.span(small)[0]
    loops = [a for a in ctx.ancestors(small) if isinstance(a, (cst.For, cst.While))]
    for b in bound_names(fn.body).get(c.value, []):
        if ctx.span(b)[0] >= line or any(any(x is lp for x in ctx.ancestors(b)) for lp in loops):
            return None
    if not bound_names(fn.body).get(c.value):
        return None
    return inner.value, c


def _token_mask(sel: _Sel, key: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """(kind, bool token mask) of a selector: ``top`` of an index, a mask name, an inline
    comparison; kind "pairs" for the token index of ``torch.where(M)`` with two outputs."""
    if isinstance(key, cst.Name):
        if key.value in sel.index:
            m = sel.index[key.value]
            return "index", m if _is_bool_expr(m) else cst.parse_expression(f"({_code(m)} != 0)")
        if key.value in sel.pairs:
            m = sel.pairs[key.value][1]
            axis = "-1" if key.value in sel.token_first else "0"
            return "pairs", template(f"__m__.any({axis})", m=atom(m))
        if key.value in sel.masks:
            return "mask", key
    if _is_bool_expr(key) and not isinstance(key, cst.Name):
        return "mask", key
    return None


class _Subst(cst.CSTTransformer):
    """Selections of rows -> all rows; pair weights -> per-token weights."""

    def __init__(self, sel: _Sel) -> None:
        self.sel = sel
        self.pair_weights: list[cst.Subscript] = []
        self.mul_parents: set[int] = set()

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Multiply):
            self.mul_parents.add(id(node.left))
            self.mul_parents.add(id(node.right))

    def leave_Subscript(
        self, original: cst.Subscript, updated: cst.Subscript
    ) -> cst.BaseExpression:
        keys = [
            el.slice.value if isinstance(el.slice, cst.Index) else None for el in original.slice
        ]
        hits = [i for i, k in enumerate(keys) if k is not None and _token_mask(self.sel, k)]
        if not hits:
            return updated
        if len(hits) > 1:
            raise _Reject(f"`{_code(original)}` selects with two token masks")
        i = hits[0]
        key = keys[i]
        assert key is not None  # a hit is an index with a token mask
        kind, m = _token_mask(self.sel, key)  # type: ignore[misc]
        self.sel.used.append(_code(m))
        rest = [el for j, el in enumerate(updated.slice) if j != i]
        if kind == "pairs":
            slot = self.sel.pairs[_code(key)][0]
            nxt = keys[i + 1] if i + 1 < len(keys) else None
            if i != 0 or not (isinstance(nxt, cst.Name) and nxt.value == slot):
                # rows of the pairs: the token's own row (one per pair, summed below)
                if any(isinstance(k, cst.Name) and k.value == slot for k in keys):
                    raise _Reject(f"`{_code(original)}` reads the slot index in another place")
            else:
                if id(original) not in self.mul_parents:
                    raise _Reject(
                        f"`{_code(original)}` is not a factor of the expert's output: the "
                        "per-token sum of the pairs is not the same"
                    )
                m_pairs = self.sel.pairs[_code(key)][1]
                self.sel.weighted = True
                m_t = "__m__" if _code(key) in self.sel.token_first else "__m__.t()"
                dense = template(f"(__w__ * {m_t}).sum(-1)", w=atom(updated.value), m=atom(m_pairs))
                tail = [el for el in updated.slice[2:]]
                if not tail:
                    return dense
                return cst.Subscript(
                    value=dense,
                    slice=[cst.SubscriptElement(cst.Slice(lower=None, upper=None)), *tail],
                )
        if not rest:
            return updated.value
        new = list(updated.slice)
        new[i] = cst.SubscriptElement(cst.Slice(lower=None, upper=None))
        return updated.with_changes(slice=new)


class _Dispatch:
    def __init__(self, ctx: FixContext, loop: cst.For) -> None:
        self.ctx = ctx
        self.loop = loop
        self.sel = _Sel()
        self.rows = _Rows(ctx)
        self.experts = ""  # source text of the experts' list
        self._combined: set[str] = set()  # the tensors the expert's rows are written into
        self._derived: set[str] = set()  # names computed from selected rows
        self.glue_why: str | None = None  # a call on selected rows not known to keep rows apart
        self.counts: _Counts | None = None  # per-expert counts only read by the empty skip
        self.pair_why: str | None = None  # `out[tok] += y` of (token, slot) pairs
        self.fn_seen = False  # a per-row function with parameters is applied to selected rows
        self._feat: set[str] = set()  # names of rows with a feature dimension (linear outputs)
        self.hits: _Hits | None = None  # `for e in V.nonzero()`: only the experts hit
        self.hits_why: str | None = None  # why such a hit list is not shown to be exact

    # -------------------------------------------------------------- experts
    def expert_attr(self, callee: cst.BaseExpression, bound: dict[str, str]) -> str:
        """``X`` of ``self.X[i]``, of a name bound to it, or of the loop's target over
        ``enumerate(self.X)``."""
        if isinstance(callee, cst.Subscript):
            return self_attr(callee.value) or ""
        if isinstance(callee, cst.Name):
            return bound.get(callee.value, "")
        return ""

    def loop_bound(self) -> dict[str, str]:
        out: dict[str, str] = {}
        it, tgt = self.loop.iter, self.loop.target
        if (attr := self_attr(it)) and isinstance(tgt, cst.Name):
            out[tgt.value] = attr
        if isinstance(it, cst.Call) and _attr(it) in ("enumerate", "zip"):
            elts = tgt.elements if isinstance(tgt, cst.Tuple) else []
            srcs = [a.value for a in it.args]
            if (
                _attr(it) == "enumerate"
                and len(elts) == 2
                and srcs
                and (attr := self_attr(srcs[0]))
            ):
                if isinstance(elts[1].value, cst.Name):
                    out[elts[1].value.value] = attr
            if _attr(it) == "zip":
                for el, s in zip(elts, srcs, strict=False):
                    if isinstance(el.value, cst.Name) and (attr := self_attr(s)):
                        out[el.value.value] = attr
        for node in all_nodes(self.loop.body):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                t = node.targets[0].target
                if isinstance(t, cst.Name) and isinstance(node.value, cst.Subscript):
                    if attr := self_attr(node.value.value):
                        out[t.value] = attr
        return out

    def module_lists(self) -> set[str]:
        klass = self.ctx.enclosing(self.loop, cst.ClassDef)
        if klass is None:
            return set()
        out = set()
        for st in klass.body.body:
            if isinstance(st, cst.FunctionDef) and st.name.value == "__init__":
                for node in all_nodes(st):
                    if (
                        isinstance(node, cst.Assign)
                        and len(node.targets) == 1
                        and (a := self_attr(node.targets[0].target))
                        and _attr(node.value) == "ModuleList"
                    ):
                        out.add(a)
        return out

    def expert_calls(self) -> list[tuple[cst.Call, str]]:
        lists = self.module_lists()
        bound = self.loop_bound()
        out = []
        for node in all_nodes(self.loop.body):
            if isinstance(node, cst.Call):
                a = self.expert_attr(node.func, bound)
                if a and a in lists:
                    out.append((node, a))
        return out

    def expert_rowwise(self, attr: str) -> str | None:
        klass = self.ctx.enclosing(self.loop, cst.ClassDef)
        assert klass is not None
        return _experts_rowwise(self.ctx, klass, attr, self.rows)

    # -------------------------------------------------------------- the rewrite
    def rewrite(self) -> Rewrite | Proposal | NoFix:
        calls = self.expert_calls()
        attr = calls[0][1] if calls else ""
        self.experts = f"self.{attr}" if attr else ""
        it = self.loop.iter
        self.counts = _Counts.of(self.ctx, self.loop)
        hits = _Hits.of(self.ctx, self.loop)
        if isinstance(hits, str):
            self.hits_why = hits
            return NoFix(f"the expert loop's dense dispatch is not the same: {hits}")
        self.hits = hits
        if (
            self.counts is None
            and hits is None
            and (
                any(_attr(n) == "split" for n in all_nodes(it))
                or any(_attr(n) == "tolist" for n in all_nodes(it))
            )
        ):
            return NoFix(
                "the experts' inputs are chunks of a copy sorted by expert (`split` by the "
                "per-expert counts): the dense form needs each token's expert, so by hand: "
                "`for e, expert in enumerate(experts): out = out + expert(x) * "
                "(expert_idx == e)[:, None]` on the unsorted tokens"
            )
        try:
            body = self.new_body()
            if hits is not None:
                body = hits.body(self, body)
        except _Reject as exc:
            return NoFix(f"the expert loop's dense dispatch is not the same: {exc}")
        if not calls and not self.fn_seen:
            return NoFix(
                "the loop applies no per-row function with parameters (an expert module, "
                "`F.linear`/`@` by a weight) to the selected rows"
            )
        why = (self.expert_rowwise(attr) if attr else None) or self.glue_why or self.pair_why
        for call, _ in calls:
            if len(call.args) != 1 or call.args[0].keyword is not None:
                why = why or f"`{_code(call)}` passes the expert more than the token rows"
        new_loop = self.loop.with_changes(body=self.loop.body.with_changes(body=body))
        what = (
            f"every expert of `{self.experts}` runs on all tokens"
            if attr
            else "each step's per-row function (the expert's weights) runs on all rows"
        )
        title = (
            f"dense dispatch: {what} and the "
            "routing weight (zero for a token not routed to it) selects its rows; the graph no "
            "longer breaks per expert, at E/k x the expert FLOPs of the sparse dispatch (E "
            "experts, k per token): measure with `compilelint bench`"
        )
        changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]] = []
        if self.counts is not None:
            dead = self.counts.dead(self.ctx, self.loop, body)
            if isinstance(dead, str):
                return NoFix(f"the expert loop's dense dispatch is not the same: {dead}")
            if self.counts.header is not None:
                new_loop = new_loop.with_changes(
                    target=cst.Name(self.counts.header),
                    iter=cst.parse_expression(f"range(len({self.experts}))"),
                )
            changes.extend((st, cst.RemovalSentinel.REMOVE) for st in dead)
            title += (
                f"; the per-expert counts `{self.counts.name}` only skipped empty experts (an "
                "empty expert now adds zero), so their `.tolist()` goes"
            )
        if hits is not None:
            new_loop = new_loop.with_changes(iter=hits.iter)
            changes.extend((st, cst.RemovalSentinel.REMOVE) for st in hits.dead)
            title += (
                f"; it visits every expert (`range({_code(hits.mask)}.shape[0])`), not only the "
                f"ones `{_code(self.loop.iter)}` lists: one that got no token adds zero"
            )
        changes.insert(0, (self.loop, new_loop))
        if why is not None:
            return Proposal(
                title, changes, reason=f"the expert is not known to act on each token alone: {why}"
            )
        return Rewrite(title, changes)

    def new_body(self) -> Sequence[cst.BaseStatement]:
        body = self.loop.body
        if not isinstance(body, cst.IndentedBlock):
            raise _Reject("the loop body is on one line")
        stmts = list(body.body)
        # first pass: selections
        for st in stmts:
            for node in all_nodes(st):
                if isinstance(node, cst.BaseSmallStatement):
                    _index_def(self.ctx, node, self.sel)
                if (
                    isinstance(node, cst.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0].target, cst.Name)
                    and _is_bool_expr(node.value)
                ):
                    self.sel.masks[node.targets[0].target.value] = node.value
        self.sel.orient(body)
        if not (self.sel.index or self.sel.pairs or self.sel.masks or self._inline_masks()):
            raise _Reject("no token selection by a mask or its indices was found")
        out: list[cst.BaseStatement] = []
        self._flatten(stmts, out, top=True)
        for st in out:
            left = names_in(st) & (
                set(self.sel.index) | set(self.sel.pairs) | {s for s, _ in self.sel.pairs.values()}
            )
            if left:
                raise _Reject(
                    f"`{sorted(left)[0]}` is used in `{_code(st)}`, not only to select rows"
                )
        if len(set(self.sel.used)) > 1:
            raise _Reject("the rows are selected with more than one token mask")
        if not self.sel.used:
            raise _Reject("no rows are selected")
        if self.sel.pair_sums and not self.sel.weighted:
            raise _Reject(
                "the (slot, token) pairs' outputs are added without their routing weight: a "
                "token routed twice would count once"
            )
        self._after_loop(out)
        return out

    def _inline_masks(self) -> bool:
        return any(
            isinstance(n, cst.Subscript)
            and _single_index(n) is not None
            and _is_bool_expr(_single_index(n))  # type: ignore[arg-type]
            for n in all_nodes(self.loop.body)
        )

    def _after_loop(self, out: list[cst.BaseStatement]) -> None:
        """Names the loop assigns from selected rows must not be read after it."""
        fn = self.ctx.function(self.loop)
        if fn is None:
            return
        assigned: set[str] = set()
        for st in out:
            for node in all_nodes(st):
                if isinstance(node, cst.Assign):
                    for t in node.targets:
                        if isinstance(t.target, cst.Name):
                            assigned.add(t.target.value)
        assigned -= self._combined
        after = False
        for st in fn.body.body:  # type: ignore[assignment, union-attr]
            if after:
                read = names_in(st) & assigned
                if read:
                    raise _Reject(f"`{sorted(read)[0]}` (the expert's rows) is read after the loop")
            if st is self.loop or any(n is self.loop for n in all_nodes(st)):
                after = True

    def _empty_test(self, test: cst.BaseExpression) -> bool:
        """``top.shape[0] == 0``, ``top.numel() == 0``, ``len(top) == 0``, ``not m.any()``,
        ``m.sum() == 0`` and their positive forms (``> 0``, ``!= 0``, bare)."""
        sels = self.sel.names()
        if not names_in(test) or not names_in(test) <= sels | {"len"}:
            # an inline mask expression: allowed when it is a token mask's `.any()`
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test = test.expression
            return (
                _attr(test) == "any"
                and isinstance(test, cst.Call)
                and not test.args
                and (
                    _is_bool_expr(test.func.value)  # type: ignore[attr-defined]
                )
            )
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._empty_test(test.expression)
        if isinstance(test, cst.Comparison):
            if len(test.comparisons) != 1 or not _is_zero(test.comparisons[0].comparator):
                return False
            if not isinstance(
                test.comparisons[0].operator, (cst.Equal, cst.NotEqual, cst.GreaterThan)
            ):
                return False
            test = test.left
        if isinstance(test, cst.Call) and _attr(test) in ("any", "numel", "sum", "count_nonzero"):
            return not test.args
        if isinstance(test, cst.Call) and _attr(test) == "len":
            return True
        if isinstance(test, cst.Subscript) and _code(test).endswith(".shape[0]"):
            return True
        return _attr(test) == "size" and _code(test).endswith("size(0)")

    def _flatten(
        self, stmts: Sequence[cst.BaseStatement], out: list[cst.BaseStatement], top: bool
    ) -> None:
        for i, st in enumerate(stmts):
            if (
                isinstance(st, cst.If)
                and st.orelse is None
                and (
                    self._empty_test(st.test)
                    or (self.counts is not None and self.counts.test(st.test))
                )
            ):
                inner = st.body.body if isinstance(st.body, cst.IndentedBlock) else []
                if (
                    len(inner) == 1
                    and isinstance(inner[0], cst.SimpleStatementLine)
                    and all(isinstance(s, cst.Continue) for s in inner[0].body)
                ):
                    continue  # an empty-expert skip
                if i == len(stmts) - 1 or all(
                    isinstance(s, cst.SimpleStatementLine)
                    and all(isinstance(x, cst.Pass) for x in s.body)
                    for s in stmts[i + 1 :]
                ):
                    self._flatten(list(inner), out, top=False)  # `if mask.any():` around the rest
                    continue
            if self._static_skip(st):
                out.append(st)  # `if e == self.num_experts: continue`: decided on the index
                continue
            if not isinstance(st, cst.SimpleStatementLine):
                raise _Reject(f"the loop holds `{_code(st).splitlines()[0]}`")
            new_small: list[cst.BaseSmallStatement] = []
            for small in st.body:
                if _index_def(self.ctx, small, _Sel()):
                    continue  # the index statement goes
                self._glue(small)
                new_small.append(self._small(small))
            if new_small:
                out.append(st.with_changes(body=new_small))

    def _static_skip(self, st: cst.BaseStatement) -> bool:
        """``if <test>: continue`` whose test reads only the loop's index, ``self`` and
        constants (``if expert_idx == self.num_experts: continue``, a padding expert): the same
        decision on every expert in the dense loop, where the index is a Python int."""
        if not (isinstance(st, cst.If) and st.orelse is None):
            return False
        inner = st.body.body if isinstance(st.body, cst.IndentedBlock) else []
        if not (
            len(inner) == 1
            and isinstance(inner[0], cst.SimpleStatementLine)
            and all(isinstance(x, cst.Continue) for x in inner[0].body)
        ):
            return False
        index = _target_names(self.loop.target)
        if self.hits is None and not (
            isinstance(self.loop.iter, cst.Call) and _attr(self.loop.iter) in ("range", "enumerate")
        ):
            return False
        read = names_in(st.test)
        return bool(read & index) and read <= index | {"self", "len"}

    def _selected(self, e: cst.CSTNode) -> bool:
        """Whether ``e`` reads selected rows (a selection by a token mask, or a name computed
        from one)."""
        if names_in(e) & self._derived:
            return True
        for n in all_nodes(e):
            if isinstance(n, cst.Subscript):
                keys = [el.slice.value for el in n.slice if isinstance(el.slice, cst.Index)]
                if any(_token_mask(self.sel, k) is not None for k in keys):
                    return True
        return False

    def _glue(self, small: cst.BaseSmallStatement) -> None:
        """Every operation on selected rows other than the expert must keep rows apart (casts,
        trailing views, activations, elementwise arithmetic, ``F.linear``/``@`` by a weight that
        is not made of rows, reductions and splits over the last dimension, row-wise modules on
        ``self``, the scatter): ``y.mean(0)`` of the routed rows is not the mean of the dense
        rows, nor is ``W @ y`` or ``y[0]``. Also notes whether a per-row function with
        parameters is applied (``fn_seen``): what makes an inline loop body an expert."""
        bound = self.loop_bound()
        lists = self.module_lists()
        for n in all_nodes(small):
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply):
                if self._selected(n.right):
                    self.glue_why = self.glue_why or (
                        f"`{_code(n)}` multiplies by the selected rows from the right: rows mix"
                    )
                elif self._selected(n.left):
                    self.fn_seen = True
                continue
            if isinstance(n, cst.Subscript) and self._selected(n.value):
                keys = [el.slice for el in n.slice]
                if any(
                    isinstance(k, cst.Index) and _token_mask(self.sel, k.value) is not None
                    for k in keys
                ):
                    continue
                first = keys[0] if keys else None
                full = isinstance(first, cst.Slice) and (
                    first.lower is None and first.upper is None and first.step is None
                )
                if not full and not (
                    isinstance(first, cst.Index) and isinstance(first.value, cst.Ellipsis)
                ):
                    self.glue_why = self.glue_why or f"`{_code(n)}` picks rows of the expert's rows"
                continue
            if not isinstance(n, cst.Call):
                continue
            if self.expert_attr(n.func, bound) in lists:
                if any(self._selected(a.value) for a in n.args):
                    self.fn_seen = True
                continue
            parts: list[cst.CSTNode] = [a.value for a in n.args]
            if isinstance(n.func, cst.Attribute):
                parts.append(n.func.value)
            if not any(self._selected(p) for p in parts):
                continue
            why = self._rowwise_call(n)
            if why is not None:
                self.glue_why = self.glue_why or why
        if isinstance(small, cst.Assign) and self._selected(small.value):
            for t in small.targets:
                self._derived |= _target_names(t.target)
                if self._featured(small.value):
                    self._feat |= _target_names(t.target)

    def _featured(self, e: cst.CSTNode) -> bool:
        """``e`` is (made from) rows with a feature dimension: the output of ``F.linear``,
        ``@``, a module on ``self`` or an expert, or a name bound to one."""
        if names_in(e) & self._feat:
            return True
        for n in all_nodes(e):
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply):
                return True
            if isinstance(n, cst.Call) and (
                last_name(n.func) == "linear"
                or self_attr(n.func)
                or self.expert_attr(n.func, self.loop_bound()) in self.module_lists()
            ):
                return True
        return False

    def _rowwise_call(self, n: cst.Call) -> str | None:
        """None when the call ``n`` (some of whose inputs are selected rows) keeps rows apart."""
        name = last_name(n.func)
        method = isinstance(n.func, cst.Attribute) and _code(n.func.value) not in _FUNC_ROOTS | {
            self.ctx.torch()
        }
        pos = [a.value for a in n.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in n.args if a.keyword is not None}
        if name in _ROW_METHODS or name in ROWWISE_FUNCS or name in ("index_add_", "index_copy_"):
            return None
        if method and name in _ELEMENTWISE_METHODS:
            return None
        if name == "linear" and not method:
            # F.linear(rows, W, b): each output row is W @ row (+ b)
            if (
                pos
                and self._selected(pos[0])
                and not any(self._selected(a) for a in [*pos[1:], *kw.values()])
            ):
                self.fn_seen = True
                return None
        operand = n.func.value if method else (pos[0] if pos else None)  # type: ignore[attr-defined]
        if name in _LAST_DIM_OPS and operand is not None and self._featured(operand):
            # over the last dimension of rows that have one: the output of a linear map or a
            # module (a 1-d selection such as `gate[mask]` has no feature dimension: its last
            # dimension is the rows')
            # the dimension: a keyword, else the op's positional slot
            slot = {"chunk": 1, "split": 1, "tensor_split": 1}.get(name, 0) + (0 if method else 1)
            dim = kw.get("dim", pos[slot] if len(pos) > slot and name != "norm" else None)
            others = [a for a in (pos[1:] if not method else pos) if a is not dim]
            if (
                dim is not None
                and _code(dim) == "-1"
                and not any(self._selected(a) for a in others)
            ):
                return None
        attr = self_attr(n.func)
        klass = self.ctx.enclosing(self.loop, cst.ClassDef)
        if attr and klass is not None and len(n.args) == 1 and n.args[0].keyword is None:
            ctors = _Rows.init_of(klass, attr)
            if len(ctors) == 1 and self.rows.ctor(ctors[0]) is None:
                self.fn_seen = True
                return None
        return (
            f"`{_code(n)}` is applied to the selected rows and is not known to act on each "
            "token alone"
        )

    def _small(self, small: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
        torch = self.ctx.torch()
        if isinstance(small, (cst.Assign, cst.AugAssign)):
            targets = (
                [t.target for t in small.targets]
                if isinstance(small, cst.Assign)
                else [small.target]
            )
            rebound = {
                n.value
                for t in targets
                for n in all_nodes(t.value if isinstance(t, cst.Subscript) else t)
                if isinstance(n, cst.Name)
            }
            rebound &= set(self.sel.index) | set(self.sel.pairs)
            if rebound:
                raise _Reject(
                    f"the selected tokens `{sorted(rebound)[0]}` are changed by `{_code(small)}` "
                    "(a capacity cut drops tokens the dense dispatch would keep)"
                )
        subst = _Subst(self.sel)
        # out.index_add_(0, top, y)
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            if _attr(call) in ("index_add_", "index_add") and isinstance(call.func, cst.Attribute):
                args = [a.value for a in call.args]
                if len(args) != 3 or _code(args[0]) != "0":
                    raise _Reject(f"`{_code(call)}` is not a scatter-add over the tokens")
                got = _token_mask(self.sel, args[1])
                if got is None or _attr(call) != "index_add_":
                    raise _Reject(f"`{_code(call)}` does not scatter by the selected tokens")
                self.sel.used.append(_code(got[1]))
                y = _through(args[2], subst)
                self.sel.pair_sums |= got[0] == "pairs"
                new = template(
                    f"__out__.add_({torch}.where(__m__[..., None], __y__, 0))",
                    out=call.func.value,
                    m=atom(got[1]),
                    y=y,
                )
                return small.with_changes(value=new)
            if _attr(call) == "index_copy_" and isinstance(call.func, cst.Attribute):
                # `out.index_copy_(0, rows, y)` with distinct rows (of a mask): the rows of
                # `out` at the mask become `y`'s, in place as before
                args = [a.value for a in call.args]
                got = _token_mask(self.sel, args[1]) if len(args) == 3 else None
                if got is None or _code(args[0]) != "0" or got[0] == "pairs":
                    raise _Reject(f"`{_code(call)}` does not copy the rows of one token mask")
                self.sel.used.append(_code(got[1]))
                new = template(
                    f"__out__.copy_({torch}.where(__m__[..., None], __y__, __out__))",
                    out=call.func.value,
                    m=atom(got[1]),
                    y=_through(args[2], subst),
                )
                return small.with_changes(value=new)
        # out[sel] += y / out[sel] = y
        if isinstance(small, (cst.AugAssign, cst.Assign)):
            tgt = (
                small.target
                if isinstance(small, cst.AugAssign)
                else (small.targets[0].target if len(small.targets) == 1 else None)
            )
            if isinstance(tgt, cst.Subscript):
                key = _single_index(tgt)
                got = _token_mask(self.sel, key) if key is not None else None
                if got is None or not isinstance(tgt.value, cst.Name):
                    raise _Reject(f"`{_code(small)}` writes into rows that are not the tokens'")
                if got[0] == "pairs" and not (
                    isinstance(small, cst.AugAssign)
                    and key is not None
                    and _code(key) in self.sel.token_first
                ):
                    raise _Reject(f"`{_code(small)}` writes the pairs' rows without adding them")
                if got[0] == "pairs":
                    self.sel.pair_sums = True
                    m_pairs = self.sel.pairs[_code(key)][1]  # type: ignore[arg-type]
                    if not _one_slot(self.ctx, self.loop, m_pairs):
                        self.pair_why = self.pair_why or (
                            f"`{_code(small)}` adds one pair per token, the dense form all of "
                            "them: the same when a token picks the expert in one slot at most "
                            "(top-k indices), which is not shown here"
                        )
                self.sel.used.append(_code(got[1]))
                y = _through(small.value, subst)
                out = tgt.value
                self._combined = self._combined | {out.value}
                if isinstance(small, cst.AugAssign):
                    if not isinstance(small.operator, cst.AddAssign):
                        raise _Reject(f"`{_code(small)}` is not an addition")
                    return small.with_changes(
                        target=out,
                        value=template(
                            f"{torch}.where(__m__[..., None], __y__, 0)", m=atom(got[1]), y=y
                        ),
                    )
                if not self._fresh(out.value):
                    raise _Reject(f"`{out.value}` may be a view of another tensor")
                return cst.Assign(
                    targets=[cst.AssignTarget(out)],
                    value=template(
                        f"{torch}.where(__m__[..., None], __y__, __out__)",
                        m=atom(got[1]),
                        y=y,
                        out=out,
                    ),
                )
        if isinstance(small, cst.Assign) and all(
            isinstance(t.target, cst.Name)
            or (
                isinstance(t.target, cst.Tuple)
                and all(isinstance(el.value, cst.Name) for el in t.target.elements)
            )
            for t in small.targets
        ):
            return small.visit(subst)  # type: ignore[return-value]
        if isinstance(small, (cst.Pass,)):
            return small
        raise _Reject(f"`{_code(small)}` does more than compute and scatter the expert's rows")

    def _fresh(self, name: str) -> bool:
        """``name`` is bound in the function only by creating a new tensor (zeros, empty...)."""
        fn = self.ctx.function(self.loop)
        if fn is None:
            return False
        values = [
            n.value
            for n in all_nodes(fn)
            if isinstance(n, cst.Assign)
            and any(isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets)
            and self.ctx.span(n)[0] < self.ctx.span(self.loop)[0]
        ]
        return bool(values) and all(_attr(v) in _CREATORS for v in values)


def _one_slot(ctx: FixContext, loop: cst.For, m: cst.BaseExpression) -> bool:
    """``m`` is ``ids == e`` (either side) where each row of ``ids`` holds distinct values:
    ``ids`` is the index output of a ``topk`` over the last dimension, bound once in the
    function (``_, ids = torch.topk(s, k, dim=-1)``, ``ids = s.topk(k).indices``, ``[1]``), or
    the same output returned by a module of this file on ``self`` (``w, ids =
    self.gate(x)``, whose ``forward`` returns the ``topk`` result). Then ``torch.where(m)``
    gives a token at most one slot, and ``y[tok] += v`` adds each pair once, as the dense
    form does."""
    if not (isinstance(m, cst.Comparison) and len(m.comparisons) == 1):
        return False
    if not isinstance(m.comparisons[0].operator, cst.Equal):
        return False
    sides = [m.left, m.comparisons[0].comparator]
    fn = ctx.function(loop)
    klass = ctx.enclosing(loop, cst.ClassDef)
    if fn is None or klass is None:
        return False
    idx = _target_names(loop.target)
    for ids, other in (sides, sides[::-1]):
        if isinstance(ids, cst.Name) and names_in(other) <= idx and names_in(other):
            return _topk_ids(ctx, fn, ids.value, klass, 0)
    return False


def _topk_ids(
    ctx: FixContext, fn: cst.FunctionDef, name: str, klass: cst.ClassDef, depth: int
) -> bool:
    defs = _assigns(fn, name)
    if len(defs) != 1 or not isinstance(defs[0], cst.Assign) or len(defs[0].targets) != 1:
        return False
    tgt, v = defs[0].targets[0].target, defs[0].value
    pos: int | None = None
    if isinstance(tgt, cst.Tuple):
        names = [_code(el.value) for el in tgt.elements]
        if name not in names:
            return False
        pos = names.index(name)
    elif isinstance(v, cst.Attribute) and v.attr.value == "indices":
        return _is_topk(v.value)
    elif isinstance(v, cst.Subscript) and len(v.slice) == 1 and _code(v.slice[0]) == "1":
        return _is_topk(v.value)
    else:
        return False
    if _is_topk(v):
        return pos == 1
    # `w, ids = self.gate(x)`: the submodule's forward returns the topk indices at `pos`
    attr = self_attr(v.func) if isinstance(v, cst.Call) else None
    if not attr or depth > 2:
        return False
    ctors = _Rows.init_of(klass, attr)
    if len(ctors) != 1 or not isinstance(ctors[0], cst.Call):
        return False
    cname = last_name(ctors[0].func)
    sub = next(
        (s for s in ctx.module.body if isinstance(s, cst.ClassDef) and s.name.value == cname),
        None,
    )
    fwd = next(
        (
            s
            for s in (sub.body.body if sub is not None else [])
            if isinstance(s, cst.FunctionDef) and s.name.value == "forward"
        ),
        None,
    )
    if fwd is None or sub is None:
        return False
    rets = [n for n in all_nodes(fwd) if isinstance(n, cst.Return)]
    if len(rets) != 1 or not isinstance(rets[0].value, cst.Tuple):
        return False
    els = rets[0].value.elements
    if pos >= len(els) or not isinstance(els[pos].value, cst.Name):
        return False
    return _topk_ids(ctx, fwd, els[pos].value.value, sub, depth + 1)  # type: ignore[attr-defined, union-attr]


def _is_topk(v: cst.BaseExpression) -> bool:
    """A ``topk`` call over the last dimension (the default)."""
    if not (isinstance(v, cst.Call) and _attr(v) == "topk"):
        return False
    for a in v.args:
        if a.keyword is not None and a.keyword.value == "dim" and _code(a.value) != "-1":
            return False
    pos = [a for a in v.args if a.keyword is None]
    torch_fn = isinstance(v.func, cst.Attribute) and _code(v.func.value) in ("torch",)
    dim_slot = 2 if torch_fn else 1
    return len(pos) <= dim_slot or _code(pos[dim_slot].value) == "-1"


class _Hits:
    """``for e in hit`` where ``hit = V.nonzero()`` lists the experts that got a token (HF
    transformers' ``expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()``,
    then ``e = e[0]``): dense, the loop visits every expert, ``range(M.shape[0])``. Exact when
    ``V[e]`` holds iff expert ``e``'s selection is not empty: ``V`` is ``M.sum(dims) > 0``
    (``torch.greater``/``gt``/``!= 0``/``M.any(dims)``/the sum itself) of a mask ``M`` of
    non-negative entries (``one_hot``, a comparison, their permutes and casts) reduced over
    dimensions other than 0, and every selection in the body reads ``M[e]``. An expert not hit
    then selects no row and adds zero (or keeps the output), as the skipped step did."""

    def __init__(self, iter_: cst.BaseExpression, mask: cst.Name, dead: list[cst.BaseStatement]):
        self.iter = iter_
        self.mask = mask
        self.dead = dead
        self.rebind: str | None = None

    @staticmethod
    def of(ctx: FixContext, loop: cst.For) -> _Hits | str | None:
        fn = ctx.function(loop)
        tgt = loop.target
        if fn is None or not isinstance(tgt, cst.Name):
            return None
        it = loop.iter
        dead: list[cst.BaseStatement] = []
        if isinstance(it, cst.Name):
            defs = _assigns(fn, it.value)
            if len(defs) != 1 or not isinstance(defs[0], cst.Assign):
                return None
            d = defs[0]
            if len(d.targets) != 1 or ctx.span(d)[0] >= ctx.span(loop)[0]:
                return None
            v = d.value
            reads = [n for n in all_nodes(fn) if isinstance(n, cst.Name) and n.value == it.value]
            stmt = ctx.statement(d)
            block = ctx.parent(stmt) if stmt is not None else None
            if (
                len(reads) == 2
                and isinstance(stmt, cst.SimpleStatementLine)
                and len(stmt.body) == 1
                and isinstance(block, (cst.IndentedBlock, cst.Module))
                and len(block.body) > 1
            ):
                dead.append(stmt)
        else:
            v = it
        two_d, vec = _nonzero_of(ctx, v)
        if vec is None:
            return None
        mask = _hit_mask(ctx, vec)
        if mask is None:
            return (
                f"`{_code(vec)}` is not shown to hold exactly the experts that got a token "
                "(`M.sum(dims) > 0` of the mask `M` the loop selects with)"
            )
        if any(
            isinstance(n, (cst.Assign, cst.AugAssign))
            and mask.value
            in _target_names(n.targets[0].target if isinstance(n, cst.Assign) else n.target)
            for n in all_nodes(loop.body)
        ):
            return f"`{mask.value}` is changed in the loop"
        if not _nonneg(ctx, fn, mask.value, ctx.span(loop)[0]):
            return f"`{mask.value}` is not shown to hold non-negative entries (a sum of 0 = none)"
        got = _Hits(cst.parse_expression(f"range({mask.value}.shape[0])"), mask, dead)
        got.rebind = tgt.value if two_d else None
        sel_reads = f"{mask.value}[{tgt.value}]"
        if sel_reads.replace(" ", "") not in _code(loop.body).replace(" ", ""):
            return f"the loop's selections do not read `{sel_reads}`"
        return got

    def body(self, d: _Dispatch, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """The dense body: the rebinding ``e = e[0]`` (of a 2-d ``nonzero()`` row) goes, as
        do ``e = e.item()`` / ``int(e)`` (``e`` is a Python int now)."""
        tgt = _code(d.loop.target)
        out: list[cst.BaseStatement] = []
        seen = False
        for st in body:
            if (
                isinstance(st, cst.SimpleStatementLine)
                and len(st.body) == 1
                and isinstance(st.body[0], cst.Assign)
                and _code(st.body[0].targets[0].target) == tgt
                and _code(st.body[0].value).replace(" ", "")
                in (
                    f"{tgt}[0]",
                    f"{tgt}.item()",
                    f"int({tgt})",
                    f"{tgt}[0].item()",
                    f"int({tgt}[0])",
                )
            ):
                seen = True
                continue
            out.append(st)
        if self.rebind is not None and not seen:
            raise _Reject(
                f"`{tgt}` is a row of a 2-d `nonzero()` and is not read as `{tgt}[0]` first"
            )
        return out


def _nonzero_of(ctx: FixContext, v: cst.BaseExpression) -> tuple[bool, cst.BaseExpression | None]:
    """(2-d result, ``V``) of ``V.nonzero()`` / ``torch.nonzero(V)`` / ``torch.argwhere(V)``
    (2-d), ``V.nonzero(as_tuple=True)[0]`` / ``torch.where(V)[0]`` / ``....squeeze(-1)`` /
    ``.flatten()`` / ``.view(-1)`` / ``.tolist()`` of these (1-d)."""
    flat = False
    while True:
        if isinstance(v, cst.Call) and _attr(v) in (
            "squeeze",
            "flatten",
            "view",
            "reshape",
            "tolist",
        ):
            v = v.func.value  # type: ignore[attr-defined]
            flat = True
            continue
        if isinstance(v, cst.Subscript) and len(v.slice) == 1 and _code(v.slice[0]) == "0":
            v = v.value
            flat = True
            continue
        break
    if not isinstance(v, cst.Call) or not isinstance(v.func, cst.Attribute):
        return False, None
    pos = [a.value for a in v.args if a.keyword is None]
    kw = {a.keyword.value: _code(a.value) for a in v.args if a.keyword is not None}
    name = v.func.attr.value
    torch_fn = _code(v.func.value) == ctx.torch()
    tuple_ = kw.get("as_tuple") == "True"
    if name in ("nonzero", "argwhere"):
        vec = (
            (pos[0] if len(pos) == 1 else None) if torch_fn else (v.func.value if not pos else None)
        )
        return (not tuple_ and not flat), vec
    if name == "where" and torch_fn and len(v.args) == 1 and flat:
        return False, pos[0]
    return False, None


def _hit_mask(ctx: FixContext, vec: cst.BaseExpression) -> cst.Name | None:
    """``M`` of ``M.sum(dims) > 0`` (and the forms in ``_Hits``), reduced over dims other
    than 0."""
    e = vec
    if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
        op = e.comparisons[0].operator
        if not _is_zero(e.comparisons[0].comparator) or not isinstance(
            op, (cst.GreaterThan, cst.NotEqual)
        ):
            return None
        e = e.left
    elif isinstance(e, cst.Call) and _attr(e) in ("greater", "gt", "ne", "not_equal"):
        pos = [a.value for a in e.args]
        if _code(e.func.value) == ctx.torch() and len(pos) == 2 and _is_zero(pos[1]):  # type: ignore[attr-defined]
            e = pos[0]
        elif len(pos) == 1 and _is_zero(pos[0]):
            e = e.func.value  # type: ignore[attr-defined]
        else:
            return None
    elif isinstance(e, cst.Call) and _attr(e) == "bool" and not e.args:
        e = e.func.value  # type: ignore[attr-defined]
    if not (isinstance(e, cst.Call) and _attr(e) in ("sum", "any", "count_nonzero", "amax")):
        return None
    f = e.func
    pos = [a.value for a in e.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in e.args if a.keyword is not None}
    if isinstance(f, cst.Attribute) and _code(f.value) == ctx.torch():
        if not pos:
            return None
        m, rest = pos[0], pos[1:]
    elif isinstance(f, cst.Attribute):
        m, rest = f.value, pos
    else:
        return None
    dims = kw.get("dim", rest[0] if rest else None)
    if dims is None:
        return None
    items = [el.value for el in dims.elements] if isinstance(dims, cst.Tuple) else [dims]
    if not items or any(
        not (
            isinstance(i, cst.Integer)
            or (isinstance(i, cst.UnaryOperation) and isinstance(i.expression, cst.Integer))
        )
        or _code(i) == "0"
        for i in items
    ):
        return None
    return m if isinstance(m, cst.Name) else None


def _nonneg(ctx: FixContext, fn: cst.FunctionDef, name: str, before: int) -> bool:
    """Every binding of ``name`` before line ``before`` makes non-negative entries: a
    ``one_hot``, a boolean mask, or a permute / transpose / cast of one (chained, or of
    ``name`` itself)."""
    defs = [a for a in _assigns(fn, name) if ctx.span(a)[0] < before]
    if not defs:
        return False
    for d in defs:
        if not isinstance(d, cst.Assign) or len(d.targets) != 1:
            return False
        if not _nonneg_value(d.value, name):
            return False
    return True


_SHAPE_CASTS = frozenset(
    {"permute", "transpose", "t", "long", "int", "float", "to", "contiguous", "bool"}
)


def _nonneg_value(v: cst.BaseExpression, name: str) -> bool:
    if _is_bool_expr(v) or _attr(v) == "one_hot":
        return True
    if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute):
        if v.func.attr.value in _SHAPE_CASTS:
            base = v.func.value
            return _code(base) == name or _nonneg_value(base, name)
    return False


class _Counts:
    """The per-expert counts of an expert loop read only by its empty-expert skip: ``for e, n
    in enumerate(C.tolist()): if n == 0: continue`` (``header``: the index ``e``), or ``counts
    = C.tolist()`` before ``for i in range(E): if counts[i] == 0: continue`` (``index``: ``i``).
    """

    def __init__(self, name: str, tolist: cst.Call, header: str | None, index: str | None) -> None:
        self.name = name  # the count (header form) or the list of counts (statement form)
        self.tolist = tolist
        self.header = header
        self.index = index
        self.listname: str | None = None  # `counts` of `for e, n in enumerate(counts)`

    @staticmethod
    def of(ctx: FixContext, loop: cst.For) -> _Counts | None:
        it, tgt = loop.iter, loop.target
        if (
            isinstance(it, cst.Call)
            and _attr(it) == "enumerate"
            and len(it.args) == 1
            and isinstance(it.args[0].value, cst.Call)
            and _attr(it.args[0].value) == "tolist"
            and not it.args[0].value.args
            and isinstance(tgt, cst.Tuple)
            and len(tgt.elements) == 2
            and all(isinstance(el.value, cst.Name) for el in tgt.elements)
        ):
            e, n = (el.value.value for el in tgt.elements)  # type: ignore[attr-defined]
            return _Counts(n, it.args[0].value, e, None)
        fn = ctx.function(loop)
        if (
            fn is not None
            and isinstance(it, cst.Call)
            and _attr(it) == "enumerate"
            and len(it.args) == 1
            and isinstance(it.args[0].value, cst.Name)
            and isinstance(tgt, cst.Tuple)
            and len(tgt.elements) == 2
            and all(isinstance(el.value, cst.Name) for el in tgt.elements)
        ):
            d = _tolist_def(fn, it.args[0].value.value)
            if d is not None and ctx.span(d)[0] < ctx.span(loop)[0]:
                e, n = (el.value.value for el in tgt.elements)  # type: ignore[attr-defined]
                got = _Counts(n, d.value, e, None)  # type: ignore[arg-type]
                got.listname = it.args[0].value.value
                return got
        if not (isinstance(it, cst.Call) and _attr(it) == "range" and isinstance(tgt, cst.Name)):
            return None
        fn = ctx.function(loop)
        if fn is None:
            return None
        for node in all_nodes(loop.body):
            if not isinstance(node, cst.If):
                continue
            for ref in all_nodes(node.test):
                if (
                    isinstance(ref, cst.Subscript)
                    and isinstance(ref.value, cst.Name)
                    and isinstance(_single_index(ref), cst.Name)
                    and _single_index(ref).value == tgt.value  # type: ignore[union-attr]
                ):
                    name = ref.value.value
                    d = _tolist_def(fn, name)
                    if d is not None and ctx.span(d)[0] < ctx.span(loop)[0]:
                        return _Counts(name, d.value, None, tgt.value)  # type: ignore[arg-type]
        return None

    def _ref(self, e: cst.BaseExpression) -> bool:
        if self.index is None:
            return isinstance(e, cst.Name) and e.value == self.name
        key = _single_index(e) if isinstance(e, cst.Subscript) else None
        return (
            isinstance(e, cst.Subscript)
            and isinstance(e.value, cst.Name)
            and e.value.value == self.name
            and isinstance(key, cst.Name)
            and key.value == self.index
        )

    def test(self, test: cst.BaseExpression) -> bool:
        """``n == 0``, ``not n``, ``n > 0``, ``n != 0``, ``n`` (``counts[i]`` likewise)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if isinstance(test, cst.Comparison):
            if len(test.comparisons) != 1 or not _is_zero(test.comparisons[0].comparator):
                return False
            if not isinstance(
                test.comparisons[0].operator, (cst.Equal, cst.NotEqual, cst.GreaterThan)
            ):
                return False
            test = test.left
        return self._ref(test)

    def dead(
        self, ctx: FixContext, loop: cst.For, body: Sequence[cst.BaseStatement]
    ) -> list[cst.SimpleStatementLine] | str:
        """The statements that only computed the counts (to remove), or why the counts are
        read for more than the skip."""
        if any(self.name in names_in(st) for st in body):
            return f"the per-expert counts `{self.name}` are read for more than the empty skip"
        fn = ctx.function(loop)
        if fn is None:
            return "the loop is not in a function"
        inside = {id(n) for n in all_nodes(loop)}
        out: list[cst.SimpleStatementLine] = []
        keep = self.tolist
        listname = self.listname or (self.name if self.index is not None else None)
        if listname is not None:
            stmt = ctx.statement(self.tolist)
            if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
                return f"`{listname} = ....tolist()` shares its line with other statements"
            out.append(stmt)
            inside |= {id(n) for n in all_nodes(stmt)}
        attrs = {id(n.attr) for n in all_nodes(fn) if isinstance(n, cst.Attribute)}
        inside |= attrs  # `self.n` is not the count `n`
        for name in {self.name, listname} - {None}:
            reads = [
                n
                for n in all_nodes(fn)
                if isinstance(n, cst.Name) and n.value == name and id(n) not in inside
            ]
            if reads:
                return f"the per-expert counts `{name}` are read outside the loop"
        # the tensor counted (`load = torch.bincount(...)`) goes when nothing else reads it
        src = keep.func.value  # type: ignore[attr-defined]
        if isinstance(src, cst.Name) and _single(fn, src.value):
            (a,) = _assigns(fn, src.value)
            stmt = ctx.statement(a)
            others = [
                n
                for n in all_nodes(fn)
                if isinstance(n, cst.Name)
                and n.value == src.value
                and n is not src
                and id(n) not in attrs
                and not any(n is m for m in all_nodes(a))
            ]
            in_place = any(
                isinstance(n, cst.Call) and last_name(n.func).endswith("_") for n in all_nodes(a)
            )
            if (
                not others
                and not in_place
                and isinstance(stmt, cst.SimpleStatementLine)
                and len(stmt.body) == 1
                and isinstance(a, cst.Assign)  # not a loop binding the name
                and len(a.targets) == 1
                and isinstance(a.targets[0].target, cst.Name)
            ):
                out.append(stmt)
        return out


def count_dispatch(ctx: FixContext, call: cst.Call) -> Rewrite | Proposal | NoFix | None:
    """The dense dispatch of the expert loop whose per-expert counts ``call`` (a ``.tolist()``)
    computes, when they only skip empty experts; None when ``call`` is not such counts."""
    fn = ctx.function(call)
    if fn is None:
        return None
    loops = [n for n in all_nodes(fn) if isinstance(n, cst.For)]
    for loop in loops:
        counts = _Counts.of(ctx, loop)
        if counts is None or counts.tolist is not call:
            continue
        d = _Dispatch(ctx, loop)
        if not d.expert_calls():
            return None
        return d.rewrite()
    return None


def dense_dispatch(ctx: FixContext, node: cst.CSTNode) -> Rewrite | Proposal | NoFix | None:
    """The dense dispatch of the expert loop that holds ``node`` (or whose header iterates the
    name ``node``'s statement binds: ``expert_hit = V.nonzero()``), or None when there is no
    such loop. The loop's step is an expert when it calls an expert of a ``ModuleList`` on
    ``self``, or applies a per-row function with parameters (``F.linear(x[idx], self.w[e])``,
    ``x[idx] @ self.w[e]``, a row-wise module on ``self``) to the rows it selects and
    scatters back; a loop of the second kind that the dense form does not fit is left to the
    other rewrites (None)."""
    fn = ctx.function(node)
    if fn is None:
        return None
    loop = ctx.enclosing(node, cst.For)
    header = False  # `node` binds the loop's iterable (outside the loop)
    if loop is None or ctx.function(loop) is not fn:
        loop = _loop_over(ctx, fn, node)
        if loop is None:
            return None
        header = True
    d = _Dispatch(ctx, loop)
    if d.expert_calls():
        got = d.rewrite()
        return None if header and isinstance(got, NoFix) else got
    if not _scatters(loop):
        return None
    got = d.rewrite()
    if isinstance(got, NoFix) and not (d.fn_seen or d.hits_why):
        return None  # no per-row function with weights: not an expert loop
    return got


def _loop_over(ctx: FixContext, fn: cst.FunctionDef, node: cst.CSTNode) -> cst.For | None:
    """The loop of ``fn`` whose header iterates the name that ``node``'s statement binds."""
    st = ctx.statement(node)
    if not isinstance(st, cst.SimpleStatementLine):
        return None
    names: set[str] = set()
    for small in st.body:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                names |= _target_names(t.target)
    for n in all_nodes(fn):
        if isinstance(n, cst.For) and isinstance(n.iter, cst.Name) and n.iter.value in names:
            return n
    return None


def _scatters(loop: cst.For) -> bool:
    """The loop writes rows back by index: ``index_add_``/``index_copy_`` or an indexed
    assignment ``out[sel] = ...`` / ``+=``."""
    for n in all_nodes(loop.body):
        if isinstance(n, cst.Call) and _attr(n) in ("index_add_", "index_copy_"):
            return True
        if isinstance(n, (cst.Assign, cst.AugAssign)):
            t = n.targets[0].target if isinstance(n, cst.Assign) else n.target
            if isinstance(t, cst.Subscript):
                return True
    return False


# ---------------------------------------------------------------------------- sorted split
_SPLIT_TITLE = (
    "dense dispatch on the sorted rows: every expert of `{experts}` runs on all the rows sorted "
    "by expert and `torch.where` keeps the rows of its own id (`{ids}[{order}] == e`, the rows of "
    "its `split` chunk); the un-sort and weighting after it are unchanged; no `.tolist()` sizes, "
    "no break per expert, at E/k x the expert FLOPs of the sparse dispatch (E experts, k per "
    "token): measure with `compilelint bench`"
)


def _assigns(fn: cst.FunctionDef, name: str) -> list[cst.CSTNode]:
    """Every statement in ``fn`` that binds ``name`` (alone or in a tuple): assignments and
    ``for`` loops (a loop target is a binding too, and has no ``.value``)."""
    out: list[cst.CSTNode] = []
    for n in all_nodes(fn):
        if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
            if any(name in _target_names(t) for t in targets):
                out.append(n)
        elif isinstance(n, (cst.For, cst.CompFor)):
            if name in _target_names(n.target):
                out.append(n)
    return out


def _target_names(t: cst.BaseExpression) -> set[str]:
    """Names an assignment target binds (not the names read by ``a[i] = ...``)."""
    if isinstance(t, cst.Name):
        return {t.value}
    if isinstance(t, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(el.value) for el in t.elements))
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return set()


def _value_of(fn: cst.FunctionDef, e: cst.BaseExpression) -> cst.BaseExpression:
    """The one value a name is bound to in ``fn`` (``e`` itself when it is no such name)."""
    if isinstance(e, cst.Name):
        got = _assigns(fn, e.value)
        if len(got) == 1 and isinstance(got[0], cst.Assign) and len(got[0].targets) == 1:
            if isinstance(got[0].targets[0].target, cst.Name):
                return got[0].value
    return e


def _single(fn: cst.FunctionDef, name: str) -> bool:
    got = _assigns(fn, name)
    return len(got) == 1 and isinstance(got[0], cst.Assign)


def _tolist_def(fn: cst.FunctionDef, name: str) -> cst.Assign | None:
    """The one ``name = x.tolist()`` that binds ``name`` in ``fn`` (None: another binding)."""
    defs = _assigns(fn, name)
    if len(defs) != 1 or not isinstance(defs[0], cst.Assign):
        return None
    d = defs[0]
    if isinstance(d.value, cst.Call) and _attr(d.value) == "tolist" and not d.value.args:
        return d
    return None


def _sort_ids(ctx: FixContext, fn: cst.FunctionDef, order: cst.BaseExpression) -> str | None:
    """The code of the 1-d ids that ``order`` (a name bound once) sorts in ascending order."""
    if not isinstance(order, cst.Name) or not _single(fn, order.value):
        return None
    st = _assigns(fn, order.value)[0]
    if not isinstance(st, cst.Assign) or len(st.targets) != 1:
        return None
    tgt, v = st.targets[0].target, st.value
    if not isinstance(v, cst.Call) or not isinstance(v.func, cst.Attribute):
        return None
    kind = v.func.attr.value
    if isinstance(tgt, cst.Tuple):  # `_, order = torch.sort(ids)` / `ids.sort()`
        els = tgt.elements
        if kind != "sort" or len(els) != 2 or _code(els[1].value) != order.value:
            return None
    elif kind != "argsort":
        return None
    pos = [a.value for a in v.args if a.keyword is None]
    for a in v.args:
        if a.keyword is None:
            continue
        k = a.keyword.value
        if k == "descending" and _code(a.value) != "False":
            return None
        if k == "dim" and _code(a.value) not in ("0", "-1"):
            return None
        if k not in ("descending", "dim", "stable"):
            return None
    if _code(v.func.value) == ctx.torch():
        if len(pos) != 1:
            return None
        ids = pos[0]
    elif pos:
        return None
    else:
        ids = v.func.value
    if not isinstance(ids, cst.Name) or not _single(fn, ids.value):
        return None
    return ids.value


def _counts_of(ctx: FixContext, fn: cst.FunctionDef, e: cst.BaseExpression) -> str | None:
    """The ids whose per-id counts ``e`` is: ``torch.bincount(ids, ...)``, ``ids.bincount()``,
    ``F.one_hot(ids, E).sum(0)`` (through names bound once)."""
    e = _value_of(fn, e)
    if not isinstance(e, cst.Call) or not isinstance(e.func, cst.Attribute):
        return None
    pos = [a.value for a in e.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in e.args if a.keyword is not None}
    name = e.func.attr.value
    if name == "bincount" and "weights" not in kw:
        if _code(e.func.value) == ctx.torch():
            ids = pos[0] if len(pos) >= 1 else None
        else:
            ids = e.func.value if not pos or len(pos) == 0 else None
        return ids.value if isinstance(ids, cst.Name) else None
    if name == "sum" and (
        [_code(p) for p in pos] == ["0"] or (not pos and _code(kw.get("dim", cst.Name("x"))) == "0")
    ):
        oh = e.func.value
        if isinstance(oh, cst.Call) and _attr(oh) == "one_hot":
            ids = next((a.value for a in oh.args if a.keyword is None), None)
            return ids.value if isinstance(ids, cst.Name) else None
    return None


class _SortedSplit:
    """The chunks ``X[order].split(counts.tolist())`` of an expert loop, proven to be the rows of
    ``X[order]`` grouped by ``ids[order]``."""

    def __init__(self, ctx: FixContext, fn: cst.FunctionDef, split: cst.Call) -> None:
        self.ctx, self.fn, self.split = ctx, fn, split

    def parts(self) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """(the sorted tensor, the sizes) of the split call."""
        c = self.split
        if not isinstance(c.func, cst.Attribute) or c.func.attr.value != "split":
            return None
        pos = [a.value for a in c.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in c.args if a.keyword is not None}
        if _code(c.func.value) == self.ctx.torch():
            if len(pos) < 2:
                return None
            x, sizes, rest = pos[0], pos[1], pos[2:]
        else:
            if not pos:
                return None
            x, sizes, rest = c.func.value, pos[0], pos[1:]
        dim = rest[0] if rest else kw.get("dim")
        if dim is not None and _code(dim) != "0":
            return None
        return x, sizes

    def why(self) -> str | None:
        """None when the chunks are the rows grouped by sorted id, else what is not shown."""
        got = self.parts()
        if got is None:
            return "the split is not `X.split(sizes)` over dimension 0"
        x, sizes = got
        sizes = _value_of(self.fn, sizes)
        if not (isinstance(sizes, cst.Call) and _attr(sizes) == "tolist" and not sizes.args):
            return "the split sizes are not a tensor's `.tolist()`"
        counted = _counts_of(self.ctx, self.fn, sizes.func.value)  # type: ignore[attr-defined]
        xs = _value_of(self.fn, x)
        key = _single_index(xs) if isinstance(xs, cst.Subscript) else None
        if key is None and isinstance(xs, cst.Call) and _attr(xs) == "index_select":
            a = [v.value for v in xs.args]
            key = a[1] if len(a) == 2 and _code(a[0]) == "0" else None
        if key is None:
            return f"`{_code(x)}` is not a copy of the tokens indexed by a sort order"
        ids = _sort_ids(self.ctx, self.fn, key)
        if ids is None:
            return f"`{_code(key)}` is not shown to be the ascending sort order of the expert ids"
        if counted != ids:
            return f"the split sizes are not shown to be the counts of `{ids}` per expert"
        self.x, self.order, self.ids = x, key.value, ids  # type: ignore[attr-defined]
        return None


def _chunk_user(
    ctx: FixContext, fn: cst.FunctionDef, split: cst.Call
) -> tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression, str, cst.CSTNode | None] | None:
    """(the loop or comprehension over the chunks, its target, the per-chunk expression, the
    chunk's name, the statement binding the chunks to a name (removed) or None)."""
    iter_of = split
    bind: cst.CSTNode | None = None
    p = ctx.parent(split)
    if (
        isinstance(p, cst.Assign)
        and len(p.targets) == 1
        and isinstance(p.targets[0].target, cst.Name)
    ):
        name = p.targets[0].target.value
        uses = [n for n in all_nodes(fn) if isinstance(n, cst.Name) and n.value == name]
        if len(uses) != 2 or not _single(fn, name):
            return None
        bind = ctx.statement(p)
        iter_of = next(u for u in uses if u is not p.targets[0].target)  # type: ignore[assignment]
    holder = ctx.parent(iter_of)
    if isinstance(holder, cst.Arg):
        holder = ctx.parent(holder)  # enumerate(...) / zip(...)
    loop = ctx.parent(holder) if holder is not None else None
    if isinstance(holder, (cst.For, cst.CompFor)):
        loop = holder
    if isinstance(loop, cst.CompFor):
        comp = ctx.parent(loop)
        if not isinstance(comp, cst.ListComp) or loop.inner_for_in or loop.ifs:
            return None
        return comp, loop.target, comp.elt, "", bind
    if isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock):
        body = list(loop.body.body)
        if body and isinstance(body[0], cst.If) and body[0].orelse is None:
            inner = body[0].body.body if isinstance(body[0].body, cst.IndentedBlock) else []
            if (
                len(inner) == 1
                and isinstance(inner[0], cst.SimpleStatementLine)
                and isinstance(inner[0].body[0], cst.Continue)
            ):
                body = body[1:]
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
            return None
        small = body[0].body
        if len(small) != 1 or not isinstance(small[0], cst.Expr):
            return None
        call = small[0].value
        if not (isinstance(call, cst.Call) and _attr(call) == "append" and len(call.args) == 1):
            return None
        return loop, loop.target, call.args[0].value, _code(call.func.value), bind  # type: ignore[attr-defined]
    return None


def sorted_dispatch(ctx: FixContext, node: cst.CSTNode) -> Rewrite | Proposal | NoFix | None:
    """The dense dispatch of an expert loop over ``X[order].split(counts.tolist())`` whose
    ``split`` holds ``node`` or whose sizes ``node`` computes; None when there is none."""
    fn = ctx.function(node)
    if fn is None:
        return None
    splits = []
    for n in all_nodes(fn):
        if isinstance(n, cst.Call) and _attr(n) == "split":
            if any(m is node for m in all_nodes(n)):
                splits.append(n)
            else:
                st = ctx.statement(node)
                if isinstance(st, cst.SimpleStatementLine) and any(
                    isinstance(s, cst.Assign)
                    and len(s.targets) == 1
                    and isinstance(s.targets[0].target, cst.Name)
                    and s.targets[0].target.value in names_in(n)
                    for s in st.body
                ):
                    splits.append(n)
    if not splits:
        return _offsets_dispatch(ctx, fn, node)
    if len(splits) != 1:
        return None
    split = splits[0]
    user = _chunk_user(ctx, fn, split)
    if user is None:
        return None
    loop, target, elt, lst, bind = user
    klass = ctx.enclosing(fn, cst.ClassDef)
    if klass is None:
        return None
    # the per-chunk expression: expert(chunk), or `expert(c) if c.shape[0] > 0 else c`
    els = target.elements if isinstance(target, cst.Tuple) else []
    if len(els) != 2 or not all(isinstance(el.value, cst.Name) for el in els):
        return None
    it = loop.for_in.iter if isinstance(loop, cst.ListComp) else loop.iter  # type: ignore[attr-defined]
    names = [el.value.value for el in els]  # type: ignore[attr-defined]
    srcs = [a.value for a in it.args] if isinstance(it, cst.Call) else []
    attr, chunk, idx = "", "", ""
    if _attr(it) == "enumerate" and len(srcs) == 1:
        idx, chunk = names
    elif _attr(it) == "zip" and len(srcs) == 2:
        for nm, s in zip(names, srcs, strict=True):
            if a := self_attr(s):
                attr = a
            else:
                chunk = nm
    if not chunk:
        return None
    if isinstance(elt, cst.IfExp):
        if _code(elt.orelse) != chunk or not isinstance(elt.test, cst.Comparison):
            return None
        elt = elt.body
    if not (isinstance(elt, cst.Call) and len(elt.args) == 1 and _code(elt.args[0].value) == chunk):
        return None
    f = elt.func
    if isinstance(f, cst.Subscript) and (a := self_attr(f.value)) and _code(f.slice[0]) == idx:
        attr = a
    elif not (isinstance(f, cst.Name) and attr and f.value in names):
        return None
    ss = _SortedSplit(ctx, fn, split)
    why = ss.why()
    if why is not None:
        return NoFix(
            f"the experts' inputs are chunks of a copy sorted by expert (`split` by the per-expert "
            f"counts), and {why}: so by hand: `for e, expert in enumerate(experts): out = out + "
            "expert(x) * (expert_idx == e)[:, None]` on the unsorted tokens"
        )
    # the list of chunk outputs is only concatenated along dimension 0
    torch = ctx.torch()
    e, ex = ctx.fresh_name("e"), ctx.fresh_name("expert")
    dense = template(
        f"sum({torch}.where((__ids__[__order__] == {e})[:, None], {ex}(__x__), 0) "
        f"for {e}, {ex} in enumerate(self.{attr}))",
        ids=cst.Name(ss.ids),
        order=cst.Name(ss.order),
        x=ss.x,
    )
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    if isinstance(loop, cst.ListComp):
        target_list: cst.CSTNode = loop
        changes.append((loop, cst.List([cst.Element(dense)])))
        holder = ctx.parent(loop)
        if isinstance(holder, cst.Arg):
            cat = ctx.parent(holder)
        elif isinstance(holder, cst.Assign) and isinstance(holder.targets[0].target, cst.Name):
            lst = holder.targets[0].target.value
            cat = None
        else:
            return None
    else:
        target_list = loop
        stmt = cst.SimpleStatementLine(
            [cst.Expr(template(f"{lst}.append(__d__)", d=dense))],
            leading_lines=leading_lines(loop),
        )
        changes.append((loop, stmt))
        cat = None
    if lst:
        uses = [n for n in all_nodes(fn) if isinstance(n, cst.Name) and n.value == lst]
        cats = [
            n
            for n in all_nodes(fn)
            if isinstance(n, cst.Call)
            and _attr(n) in ("cat", "concat", "concatenate")
            and any(_code(a.value) == lst for a in n.args)
        ]
        if len(cats) != 1 or len(uses) != 2 + (0 if isinstance(target_list, cst.ListComp) else 1):
            return None
        cat = cats[0]
        if not isinstance(target_list, cst.ListComp):
            init = _value_of(fn, cst.Name(lst))
            if not (isinstance(init, cst.List) and not init.elements):
                return None
    if not (isinstance(cat, cst.Call) and _attr(cat) in ("cat", "concat", "concatenate")):
        return None
    dims = [a.value for a in cat.args[1:]]
    if any(_code(d) != "0" for d in dims):
        return None
    if bind is not None:
        changes.append((bind, cst.RemoveFromParent()))  # type: ignore[arg-type]
    why_rows = _experts_rowwise(ctx, klass, attr)
    title = _SPLIT_TITLE.format(experts=f"self.{attr}", ids=ss.ids, order=ss.order)
    if why_rows is not None:
        return Proposal(
            title, changes, reason=f"the expert is not known to act on each token alone: {why_rows}"
        )
    return Rewrite(title, changes)


def _is_run(e: cst.BaseExpression, start: str, n: str) -> cst.BaseExpression | None:
    """The tensor of ``t[start : start + n]``, else None."""
    if not isinstance(e, cst.Subscript) or len(e.slice) != 1:
        return None
    sl = e.slice[0].slice
    if not isinstance(sl, cst.Slice) or sl.step is not None or sl.lower is None:
        return None
    if _code(sl.lower) != start or sl.upper is None:
        return None
    if _code(sl.upper).replace(" ", "") not in (f"{start}+{n}", f"{n}+{start}"):
        return None
    return e.value


def _offsets_dispatch(
    ctx: FixContext, fn: cst.FunctionDef, node: cst.CSTNode
) -> Rewrite | Proposal | NoFix | None:
    """``for e, n in enumerate(counts.tolist()): buf[s : s + n] = self.experts[e](xs[s : s +
    n]); s += n`` (running offsets over the rows sorted by expert) -> the dense form on the
    sorted rows."""
    tl = next(
        (n for n in all_nodes(node) if isinstance(n, cst.Call) and _attr(n) == "tolist"),
        node if isinstance(node, cst.Call) and _attr(node) == "tolist" else None,
    )
    if not isinstance(tl, cst.Call) or not isinstance(tl.func, cst.Attribute):
        return None
    sizes_name = ""
    p = ctx.parent(tl)
    if (
        isinstance(p, cst.Assign)
        and len(p.targets) == 1
        and isinstance(p.targets[0].target, cst.Name)
    ):
        sizes_name = p.targets[0].target.value
    loops = [
        n
        for n in all_nodes(fn)
        if isinstance(n, cst.For)
        and _attr(n.iter) == "enumerate"
        and n.iter.args  # type: ignore[attr-defined]
        and (
            n.iter.args[0].value is tl  # type: ignore[attr-defined]
            or (sizes_name and _code(n.iter.args[0].value) == sizes_name)  # type: ignore[attr-defined]
        )
    ]
    if len(loops) != 1 or not isinstance(loops[0].body, cst.IndentedBlock):
        return None
    loop = loops[0]
    els = loop.target.elements if isinstance(loop.target, cst.Tuple) else []
    if len(els) != 2 or not all(isinstance(el.value, cst.Name) for el in els):
        return None
    idx, n = (el.value.value for el in els)  # type: ignore[attr-defined]
    body = list(loop.body.body)
    if body and isinstance(body[0], cst.If) and body[0].orelse is None:
        inner = body[0].body.body if isinstance(body[0].body, cst.IndentedBlock) else []
        if (
            len(inner) == 1
            and isinstance(inner[0], cst.SimpleStatementLine)
            and isinstance(inner[0].body[0], cst.Continue)
        ):
            body = body[1:]
    small = [s for st in body if isinstance(st, cst.SimpleStatementLine) for s in st.body]
    if len(small) != 2 or len(body) != 2:
        return None
    step, work = small[1], small[0]
    if not (
        isinstance(step, cst.AugAssign)
        and isinstance(step.operator, cst.AddAssign)
        and isinstance(step.target, cst.Name)
        and _code(step.value) == n
    ):
        return None
    start = step.target.value
    init = [a for a in _assigns(fn, start) if a is not step]
    if len(init) != 1 or not (isinstance(init[0], cst.Assign) and _is_zero(init[0].value)):
        return None
    call: cst.BaseExpression | None = None
    buf = lst = ""
    if isinstance(work, cst.Assign) and len(work.targets) == 1:
        tgt = _is_run(work.targets[0].target, start, n)
        if isinstance(tgt, cst.Name):
            buf, call = tgt.value, work.value
    elif isinstance(work, cst.Expr) and _attr(work.value) == "append":
        c = work.value
        if isinstance(c, cst.Call) and len(c.args) == 1 and isinstance(c.func, cst.Attribute):
            lst, call = _code(c.func.value), c.args[0].value
    if not (isinstance(call, cst.Call) and len(call.args) == 1):
        return None
    f = call.func
    if not (
        isinstance(f, cst.Subscript) and (attr := self_attr(f.value)) and _code(f.slice[0]) == idx
    ):
        return None
    xs = _is_run(call.args[0].value, start, n)
    klass = ctx.enclosing(fn, cst.ClassDef)
    if xs is None or klass is None:
        return None
    why = None
    xs_val = _value_of(fn, xs)
    key = _single_index(xs_val) if isinstance(xs_val, cst.Subscript) else None
    ids = _sort_ids(ctx, fn, key) if key is not None else None
    if ids is None:
        why = f"`{_code(xs)}` is not shown to be a copy of the tokens in the sort order of the ids"
    elif _counts_of(ctx, fn, tl.func.value) != ids:
        why = f"the offsets are not shown to be the counts of `{ids}` per expert"
    if why is not None:
        return NoFix(
            "the experts' inputs are runs of a copy sorted by expert (running offsets over the "
            f"per-expert counts), and {why}: so by hand: `for e, expert in enumerate(experts): "
            "out = out + expert(x) * (expert_idx == e)[:, None]` on the unsorted tokens"
        )
    torch = ctx.torch()
    e, ex = ctx.fresh_name("e"), ctx.fresh_name("expert")
    dense = template(
        f"sum({torch}.where((__ids__[__order__] == {e})[:, None], {ex}(__x__), 0) "
        f"for {e}, {ex} in enumerate(self.{attr}))",
        ids=cst.Name(ids),  # type: ignore[arg-type]
        order=key,  # type: ignore[arg-type]
        x=xs,
    )
    if buf:
        made = [a for a in _assigns(fn, buf)]
        if len(made) != 1 or not isinstance(made[0], cst.Assign):
            return None
        if _attr(made[0].value) not in _CREATORS:
            return None
        new: cst.BaseSmallStatement = cst.Assign([cst.AssignTarget(cst.Name(buf))], dense)
    else:
        init_l = _value_of(fn, cst.Name(lst))
        uses = [u for u in all_nodes(fn) if isinstance(u, cst.Name) and u.value == lst]
        cats = [
            c
            for c in all_nodes(fn)
            if isinstance(c, cst.Call)
            and _attr(c) in ("cat", "concat", "concatenate")
            and len(c.args) >= 1
            and _code(c.args[0].value) == lst
            and all(_code(a.value) == "0" for a in c.args[1:])
        ]
        if not (isinstance(init_l, cst.List) and not init_l.elements) or len(uses) != 3:
            return None
        if len(cats) != 1:
            return None
        new = cst.Expr(template(f"{lst}.append(__d__)", d=dense))
    stmt = cst.SimpleStatementLine([new], leading_lines=loop.leading_lines)
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = [(loop, stmt)]
    sizes_st = ctx.statement(tl)
    if (
        sizes_name
        and len([u for u in all_nodes(fn) if isinstance(u, cst.Name) and u.value == sizes_name])
        == 2
        and isinstance(sizes_st, cst.SimpleStatementLine)
        and len(sizes_st.body) == 1
    ):
        changes.append((sizes_st, cst.RemoveFromParent()))  # type: ignore[arg-type]  # dead
    title = _SPLIT_TITLE.format(experts=f"self.{attr}", ids=ids, order=_code(key))  # type: ignore[arg-type]
    why_rows = _experts_rowwise(ctx, klass, attr)
    if why_rows is not None:
        return Proposal(
            title,
            changes,
            reason=f"the expert is not known to act on each token alone: {why_rows}",
        )
    return Rewrite(title, changes)
