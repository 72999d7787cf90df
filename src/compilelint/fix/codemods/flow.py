"""A boolean-mask selection followed through statements to its reductions (shared by CL110
and CL111; issue 22's "not reduced at once, nor bound to a name used only in reductions").

Real code selects the valid entries once and then computes several metrics or losses from
them, through elementwise steps and names (monodepth's ``compute_errors``, the SILog loss of
BTS/AdaBins, a matching loss over mutual nearest neighbours)::

    pred = pred[valid]
    gt = gt[valid]
    abs_rel = torch.mean(torch.abs(gt - pred) / gt)
    rmse = torch.sqrt(((gt - pred) ** 2).mean())

The **flow** of a mask is every selection with it (``x[m]``; ``a[i[m]]``, the rows of ``a``
gathered by the selected indices, is ``a[i][m]``), every name bound to an expression of the
flow (an element of a tuple assigned to a tuple of names, ``preds, target = preds[valid],
target[valid]``, binds the name at its position), and every expression over them made of
elementwise steps (arithmetic, comparisons,
``abs``/``log``/``sqrt``/``pow``/``clamp``/``float``, ``torch.max(a, b)``, ...), numbers and
0-d reductions of the flow; a row-wise reduction over the last dimension (``.sum(-1)``,
``.norm(dim=-1)``) of gathered rows gives one value per selected row. When every such
expression ends in a reduction (``.mean()``, ``.sum()``, ``torch.mean(...)``) or a count
(``len``, ``numel``), the selections keep the full shape and the reductions read the mask:

    pred = torch.where(valid, pred, 1)
    gt = torch.where(valid, gt, 1)
    abs_rel = torch.where(valid, torch.abs(gt - pred) / gt, 0).sum() / valid.sum()

The unselected positions are computed too: with a ``torch.where(m, x, 1)`` leaf (where the
flow divides, takes a log or a root, ... ) their values are finite, and in any case the
reduction's ``torch.where`` drops them and the leaf's ``torch.where`` sends them no gradient
(``torch.where`` selects its gradient, so a NaN there cannot reach ``x``). The selected
positions compute what they did. A flow that is only polynomial (``+ - *``, integer powers,
``abs``, comparisons) keeps its leaves as they are.

A flow may run in a loop's body (a per-image loss) when all of it is there and no flow name
is read in the loop before it is bound.

``F.cross_entropy(logits[m], y[m])`` / ``F.nll_loss`` (a mask over the leading dimensions of
the logits) needs no flow: the targets outside the mask become the loss's ``ignore_index``,
which the mean already leaves out of its count.

Where a flow member is used otherwise (returned, passed to a module, concatenated,
``split``), the selection flows on with its data-dependent shape: the caller proposes masking
and names the torch setting that traces it (``capture_dynamic_output_shape_ops``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from compilelint.fix.codemods.base import (
    atom,
    bound_names,
    name_nodes,
    number_expr,
    paren,
    side_effect,
    template,
)
from compilelint.fix.codemods.rowwise import MIX, call_step, row_vector, two_dim
from compilelint.fix.codemods.selection import index_select, masked_select, normalized_selection
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.static.analysis.walker import self_attr

FLOWS_ON = (
    "the selection flows on with its data-dependent shape; no static-shape rewrite keeps "
    "the outputs. Torch can trace it instead: `torch._dynamo.config."
    "capture_dynamic_output_shape_ops = True` (the config remedy `fix --verify` tries)"
)

# elementwise methods (no arguments) and whether their gradient is finite everywhere
_METHODS: dict[str, bool] = {
    "abs": True,
    "neg": True,
    "float": True,
    "double": True,
    "detach": True,
    "square": True,
    "relu": True,
    "sigmoid": True,
    "tanh": True,
    "log": False,
    "log2": False,
    "log10": False,
    "log1p": False,
    "exp": False,
    "expm1": False,
    "sqrt": False,
    "rsqrt": False,
    "reciprocal": False,
}
# torch.f(x) / F.f(x) with one tensor argument
_FUNCS = _METHODS
# elementwise losses (`reduction="none"` keeps the shape of their inputs) and their options
_LOSSES = frozenset(
    {
        "l1_loss",
        "mse_loss",
        "smooth_l1_loss",
        "huber_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
    }
)
_LOSS_KW = frozenset({"reduction", "beta", "delta"})
# two-tensor elementwise functions: torch.max(a, b) is torch.maximum
_BINARY = frozenset({"max", "min", "maximum", "minimum"})
# extrema and the value a position the mask leaves out takes so that it never wins
_EXTREMA = {
    "max": '-float("inf")',
    "amax": '-float("inf")',
    "min": 'float("inf")',
    "amin": 'float("inf")',
}
# reductions over all elements that a filled position leaves as they are: the extrema, and
# a norm, a count of nonzeros, ``any``/``all`` of a boolean value
_FILLED = {
    **_EXTREMA,
    "norm": "0",
    "count_nonzero": "0",
    "any": "False",
    "all": "True",
}
# reductions over the selection's first dimension (its selected rows, or all of a 1-d one)
_FIRST_DIM = frozenset({"sum", "mean", *_EXTREMA})
# reductions over the last dimension: one value per gathered row
_ROW_REDUCE = frozenset({"sum", "mean", "norm", "amax", "amin", "argmax", "argmin"})
# contexts where a division needs no parentheses
_PLAIN = (cst.Assign, cst.AnnAssign, cst.Return, cst.Arg, cst.Expr, cst.Element)
_SAFE_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.BitAnd, cst.BitOr)


@dataclass
class _Flow:
    index: str  # the index text of the selections in the source (`valid`, `good`)
    mask: cst.BaseExpression  # what the rewrite reads as the mask
    leaves: dict[int, tuple[cst.BaseExpression, cst.BaseExpression, bool]] = field(
        default_factory=dict
    )  # id(node) -> (node, the full tensor it selects from, gathered rows)
    names: dict[str, int] = field(default_factory=dict)  # flow name -> line of its binding
    rows_names: set[str] = field(default_factory=set)  # names holding gathered rows
    terminals: dict[int, tuple[cst.Call, cst.BaseExpression, str, bool]] = field(
        default_factory=dict
    )  # id(call) -> (call, receiver, op, receiver holds rows)
    counts: list[cst.BaseExpression] = field(default_factory=list)
    safe: bool = True  # only polynomial steps: leaves need no torch.where
    unordered: bool = False  # a leaf holds its elements in another order (`x[:, m]`)
    flat: bool = False  # a step flattens (`.view(-1)`): only `bincount` reads it in order
    # a leaf is a row selection of rank mask + 1, shown by a cross-entropy over it (rows of
    # a mask of any rank: reductions over dim 0 would not see the flattened rows)
    ce_rows: bool = False
    # ids of terminals reducing over the selection's first dimension (``sel.amax(0)``,
    # ``sel.max(dim=0).values``, ``sel.mean(0)`` of a plain selection): written rank-agnostic
    first_dim: set[int] = field(default_factory=set)
    # id(call) of a loss module's call (``self.crit(a, b)``) -> its functional name and the
    # keyword arguments the module was built with
    modules: dict[int, tuple[str, list[cst.Arg]]] = field(default_factory=dict)
    # every plain leaf is read as rows of a mask over all of its dims but the last, stated
    # where the leaf is read (``m.view(x.shape[:-1] + (1,))``): a row-wise step that combines
    # a row's elements (:mod:`rowwise`) follows a selection whose rank is not known otherwise
    as_rows: bool = False
    # cross-entropy target leaves whose mask is stated to be an element mask of the targets
    stated: set[int] = field(default_factory=set)
    # read as rows, the leaves that meet one value per row (`y[m]` against `.argmax(-1)`):
    # elements of their tensor, stated as such (`m.view(y.shape)`)
    element_leaves: set[int] = field(default_factory=set)
    # id(assign) -> (assign, reached by the walk) for later bindings of flow names
    rebinds: dict[int, tuple[cst.Assign, bool]] = field(default_factory=dict)
    row_steps: int = 0  # row-wise steps followed (their rows kept full-size)
    # ids of reshapes that leave the selection as it is (`t.view(-1)` of a 1-d element
    # selection, `r.view(-1, r.size(-1))` of rows): dropped in the rewrite, where the value
    # is full-size and the reshape would change its shape
    identity: dict[int, cst.Call] = field(default_factory=dict)
    # ids of `F.one_hot(t, n)` of a one-dimensional selection `t`: one row per selected
    # element; kept on the full-size index, whose positions the mask leaves out read 0 (a
    # class in range: one_hot raises for one that is not, `-100` of an ignored label)
    one_hot: dict[int, cst.Call] = field(default_factory=dict)
    ce_leaves: set[int] = field(default_factory=set)  # the leaves a cross-entropy reads as rows


class _Stop(Exception):
    """Why the flow cannot be rewritten (a reason in the codemod's words)."""


class _NeedElements(Exception):
    """Read as rows, a leaf meets one value per row: the walk starts again with it an
    element leaf."""

    def __init__(self, leaf: int) -> None:
        super().__init__(leaf)
        self.leaf = leaf


def at_side(at: cst.CSTNode, other: cst.BaseExpression) -> cst.BaseExpression:
    """The operand of the binary operation or comparison ``at`` that is not ``other``."""
    if isinstance(at, cst.BinaryOperation):
        return at.right if at.left is other else at.left
    if isinstance(at, cst.Comparison):
        right = at.comparisons[0].comparator
        return right if at.left is other else at.left
    return other


class _NeedRows(Exception):
    """A row-wise step that combines a row's elements meets a selection not known to hold
    rows: the walk starts again with the leaves read as rows (:attr:`_Flow.as_rows`)."""


def _torch_call(ctx: FixContext, call: cst.Call) -> str:
    """``f`` of ``torch.f(...)`` / ``F.f(...)`` / ``torch.nn.functional.f(...)``, else ''."""
    head, _, last = ctx.code(call.func).strip().rpartition(".")
    if head == ctx.torch() or head == "F" or head.endswith("functional"):
        return last
    return ""


def _dim_last(call: cst.Call) -> bool:
    """``(-1)``, ``(dim=-1)`` (``norm``: also ``(p=2, dim=-1)``, ``(2, -1)``)."""
    dims = [a.value for a in call.args if a.keyword is None or a.keyword.value == "dim"]
    others = [a for a in call.args if a.keyword is not None and a.keyword.value not in ("dim", "p")]
    if others or any(a.star for a in call.args) or not dims:
        return False
    d = dims[-1]
    return (
        isinstance(d, cst.UnaryOperation)
        and isinstance(d.operator, cst.Minus)
        and isinstance(d.expression, cst.Integer)
        and d.expression.value == "1"
    )


def _selection_index(ctx: FixContext, sub: cst.BaseExpression) -> str | None:
    """The mask's text of the selection ``sub`` (``x[m]``; ``x[m, :4]``, ``x[:, m]``: the
    normalized forms of :func:`selection.normalized_selection` too; ``torch.masked_select(x,
    m)``)."""
    if isinstance(sub, cst.Call):
        got = masked_select(ctx, sub) or index_select(ctx, sub)
        return ctx.code(got.m).strip() if got is not None else None
    if not isinstance(sub, cst.Subscript):
        return None
    if len(sub.slice) == 1:
        if not isinstance(sub.slice[0].slice, cst.Index):
            return None
        return ctx.code(sub.slice[0].slice.value).strip()
    got = normalized_selection(ctx, sub, lambda v: not _static_value(v))
    return ctx.code(got.m).strip() if got is not None else None


def _static_value(e: cst.BaseExpression) -> bool:
    return isinstance(e, cst.Ellipsis) or number_expr(e)


class _Walker:
    def __init__(self, ctx: FixContext, fn: cst.FunctionDef, flow: _Flow) -> None:
        self.ctx = ctx
        self.fn = fn
        self.loop: cst.For | cst.While | None = None  # the loop the flow runs in, if any
        self.block: cst.BaseSuite = fn.body  # the block that binds the flow's names
        self.flow = flow
        self.todo: list[cst.BaseExpression] = []
        self.seen: set[int] = set()
        self.rows: set[int] = set()  # walked expressions that hold gathered rows
        self.pending: list[tuple[cst.BaseExpression, cst.CSTNode, bool | None]] = []
        self.counted = False  # the flow ends in `bincount`: config numbers are operands too

    # -- members -----------------------------------------------------------------------
    def leaf(self, sub: cst.Subscript) -> cst.BaseExpression:
        """Register the selection ``sub`` (or ``a[sub]`` when it gathers rows)."""
        ctx = self.ctx
        x = sub.value
        if side_effect(x) is not None:
            raise _Stop(f"`{ctx.code(x).strip()}` has a side effect")
        norm = normalized_selection(ctx, sub, lambda v: ctx.code(v).strip() == self.flow.index)
        if self.flow.as_rows:
            if not _rows_index(sub) or not isinstance(x, (cst.Name, cst.Attribute)):
                raise _Stop(
                    f"`{ctx.code(sub).strip()[:40]}`: a row-wise step follows, and the "
                    "selection is not of a named tensor by the mask alone"
                )
            m = self.flow.mask
            if isinstance(m, cst.Name) and _built_from(ctx, m, x, sub):
                raise _Stop(
                    f"`{ctx.code(sub).strip()[:40]}` selects elements (the mask is computed "
                    "from the tensor elementwise), and a step that combines a row's elements "
                    "follows: it combines the selected elements, which no full-size value does"
                )
            self.flow.leaves[id(sub)] = (sub, x, id(sub) not in self.flow.element_leaves)
            return sub
        if norm is not None and (norm.node is not sub or len(sub.slice) > 1):
            # `x[m, :4]`, `x[:, m]`, `x[m][:, :2]`: the selection of a statically indexed x
            if not norm.ordered:
                self.flow.unordered = True
            self.flow.leaves[id(norm.node)] = (norm.node, norm.x, False)
            return norm.node
        node: cst.BaseExpression = sub
        rows = False
        el = ctx.parent(sub)
        se = ctx.parent(el) if isinstance(el, cst.Index) else None
        outer = ctx.parent(se) if isinstance(se, cst.SubscriptElement) else None
        if isinstance(outer, cst.Subscript) and len(outer.slice) == 1:
            if isinstance(ctx.parent(outer), (cst.AssignTarget, cst.AugAssign)):
                raise _Stop(f"`{ctx.code(outer).strip()}` is written through the selection")
            x = outer.with_changes(slice=[outer.slice[0].with_changes(slice=cst.Index(sub.value))])
            node, rows = outer, True
        self.flow.leaves[id(node)] = (node, x, rows)
        return node

    def selected(self, call: cst.Call) -> cst.BaseExpression:
        """Register ``torch.masked_select(x, m)``: ``x[m]`` when ``m`` is an element mask of
        ``x`` (computed from it elementwise): ``masked_select`` broadcasts ``m`` and ``x``,
        which for equal shapes selects what ``x[m]`` selects, in the same order."""
        ctx = self.ctx
        rows = index_select(ctx, call)
        if rows is not None:
            # `x.index_select(0, i)` with `i` the indices of a mask's Trues (CL110 gives the
            # mask): the rows `x[i]`, which read like the selection `x[m]`
            if side_effect(rows.x) is not None:
                raise _Stop(f"`{ctx.code(rows.x).strip()}` has a side effect")
            if self.flow.as_rows and not isinstance(rows.x, (cst.Name, cst.Attribute)):
                raise _Stop(
                    f"`{ctx.code(call).strip()[:40]}`: a row-wise step follows, and the "
                    "selection is not of a named tensor"
                )
            self.flow.leaves[id(call)] = (call, rows.x, self.flow.as_rows)
            return call
        got = masked_select(ctx, call)
        assert got is not None
        if self.flow.as_rows:
            raise _Stop("`masked_select` selects elements, not rows: a row-wise step follows")
        if side_effect(got.x) is not None:
            raise _Stop(f"`{ctx.code(got.x).strip()}` has a side effect")
        plain = mask_shape(ctx, got.m, got.x, call)
        if ctx.code(plain.where).strip() != ctx.code(got.m).strip() or not isinstance(
            got.m, cst.Name
        ):
            raise _Stop(
                f"`{ctx.code(call).strip()[:50]}`: the mask is not known to have the shape of "
                "the tensor (masked_select broadcasts them)"
            )
        self.flow.leaves[id(call)] = (call, got.x, False)
        return call

    def row_leaf(self, e: cst.BaseExpression, depth: int = 0) -> int | None:
        """The leaf ``e`` is computed from by row-wise steps (:mod:`rowwise`; ``self.head(
        h[m])``, a name bound once to such), or :meth:`direct_leaf` of ``e``."""
        got = self.direct_leaf(e)
        if got is not None or depth > 8:
            return got
        inner = self.through_views(e, True, ce=True)
        if inner is not e:
            return self.row_leaf(inner, depth + 1)
        if isinstance(e, cst.Name):
            a = self.single_bind(e)
            return None if a is None else self.row_leaf(a.value, depth + 1)
        if isinstance(e, cst.Call) and e.args and e.args[0].keyword is None:
            inner = e.args[0].value
            if isinstance(e.func, cst.Attribute) and call_step(self.ctx, e, e.func.value):
                inner = e.func.value
            if call_step(self.ctx, e, inner, self.free) is None:
                return None
            return self.row_leaf(inner, depth + 1)
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
            if call_step(self.ctx, e, e.func.value) is not None:
                return self.row_leaf(e.func.value, depth + 1)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.MatrixMultiply):
            if self.free(e.right) and two_dim(self.ctx, e.right):
                return self.row_leaf(e.left, depth + 1)
        return None

    def identity_view(
        self, e: cst.BaseExpression, call: cst.Call, rows: bool, ce: bool = False
    ) -> bool:
        """``call`` reshapes the flow value ``e`` to the shape it has: ``t.view(-1)``
        (``reshape``, ``flatten()``) of ``t`` a one-dimensional selection ``y[m]`` (``m`` an
        element mask of ``y``, or a name bound once to one), or ``r.view(-1, r.size(-1))``
        (``r.shape[-1]``) of rows, which a cross-entropy reads as its ``[N, C]`` input (the
        fairseq and transformers heads' ``logits.view(-1, logits.size(-1))``; ``ce``: asked
        while that cross-entropy is matched)."""
        ctx = self.ctx
        f = call.func
        if not (isinstance(f, cst.Attribute) and f.value is e):
            return False
        if f.attr.value not in ("view", "reshape", "flatten"):
            return False
        if any(a.keyword is not None or a.star for a in call.args):
            return False
        args = [a.value for a in call.args]
        if not rows:
            if self.flow.as_rows or self.flow.unordered:
                return False
            if f.attr.value == "flatten":
                if args:
                    return False
            elif len(args) != 1 or ctx.code(args[0]).strip() != "-1":
                return False
            return self.element_leaf(e)
        if f.attr.value == "flatten" or len(args) != 2 or ctx.code(args[0]).strip() != "-1":
            return False
        if not (ce or self.flow.as_rows or self.row_leaf(e) in self.flow.ce_leaves):
            return False  # rows of two dims: stated, or the `[N, C]` input of a cross-entropy
        n = args[1]
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute):
            return (
                _row_size(ctx, n, n.func.value)
                and ctx.code(n.func.value).strip() == ctx.code(e).strip()
            )
        if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Attribute):
            return (
                _row_size(ctx, n, n.value.value)
                and ctx.code(n.value.value).strip() == ctx.code(e).strip()
            )
        return False

    def one_hot_of(self, e: cst.BaseExpression, call: cst.Call) -> bool:
        """``F.one_hot(e, n)`` (``num_classes=n``) of a one-dimensional selection ``e`` with
        ``n`` a number the model is configured with (a literal, ``self.num_experts`` set in
        ``__init__``): ``[N, n]``, the rows of ``F.one_hot(x, n)`` the mask selects."""
        ctx = self.ctx
        if self.flow.as_rows or self.flow.unordered or self.flow.flat:
            return False
        if len(call.args) != 2 or call.args[0].value is not e or call.args[0].keyword:
            return False
        n = call.args[1]
        if n.star or (n.keyword is not None and n.keyword.value != "num_classes"):
            return False
        v = n.value
        if not (number_expr(v) or (isinstance(v, cst.Attribute) and _init_config(ctx, v))):
            return False
        leaf = self.direct_leaf(e)
        if leaf is None:
            return False
        node, x, rows = self.flow.leaves[leaf]
        # a plain `x[m]`: where `m` is not known to be an element mask of `x`, the rewrite
        # states it (`m.view(x.shape)` raises for a mask of another shape)
        return (
            not rows
            and isinstance(node, cst.Subscript)
            and len(node.slice) == 1
            and node.value is x
            and isinstance(self.flow.mask, cst.Name)
        )

    def element_leaf(self, e: cst.BaseExpression) -> bool:
        """``e`` is (a name bound once to) a plain selection ``y[m]`` whose mask is an element
        mask of ``y`` (computed from it elementwise): a one-dimensional selection."""
        leaf = self.direct_leaf(e)
        if leaf is None:
            return False
        node, x, rows = self.flow.leaves[leaf]
        if rows or not isinstance(node, cst.Subscript) or len(node.slice) != 1:
            return False
        if node.value is not x or not isinstance(self.flow.mask, cst.Name):
            return False
        shape = mask_shape(self.ctx, self.flow.mask, x, node)
        return self.ctx.code(shape.where).strip() == self.flow.mask.value

    def through_views(
        self, e: cst.BaseExpression, rows: bool, ce: bool = False
    ) -> cst.BaseExpression:
        """``e`` without the identity reshapes (:meth:`identity_view`) around it."""
        while (
            isinstance(e, cst.Call)
            and isinstance(e.func, cst.Attribute)
            and self.identity_view(e.func.value, e, rows, ce)
        ):
            e = e.func.value
        return e

    def single_bind(self, e: cst.Name) -> cst.Assign | None:
        """The plain assignment that binds ``e`` once in the function, before ``e``."""
        binds = bound_names(self.fn.body).get(e.value, [])
        if len(binds) != 1 or not isinstance(binds[0], cst.AssignTarget):
            return None
        a = self.ctx.parent(binds[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return None
        if self.ctx.span(a)[0] >= self.ctx.span(e)[0]:
            return None
        return a

    def free(self, x: cst.BaseExpression) -> bool:
        """``x`` (a weight, a bias) reads no selection with the mask and no flow name."""
        if side_effect(x) is not None:
            return False
        if any(_selection_index(self.ctx, s) == self.flow.index for s in _subscripts_in(x)):
            return False
        return not any(n.value in self.flow.names for n in name_nodes(x) if isinstance(n, cst.Name))

    def direct_leaf(self, e: cst.BaseExpression) -> int | None:
        """The leaf ``e`` is (a leaf node, or a name bound once, by a plain assignment, to a
        leaf node and not bound again), else None."""
        if id(e) in self.flow.leaves:
            return id(e)
        if not isinstance(e, cst.Name):
            return None
        binds = bound_names(self.fn.body).get(e.value, [])
        if len(binds) != 1 or not isinstance(binds[0], cst.AssignTarget):
            return None
        a = self.ctx.parent(binds[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return None
        if self.ctx.span(a)[0] >= self.ctx.span(e)[0]:
            return None
        return id(a.value) if id(a.value) in self.flow.leaves else None

    def ce_pair(self, call: cst.Call) -> tuple[int, int] | None:
        """``F.cross_entropy(a, b)`` (``nll_loss``; ``weight``, ``ignore_index`` a number,
        ``label_smoothing``, ``reduction`` mean or sum) where ``a`` is a selection ``x[m]``
        and ``b`` an element selection ``y[m]`` (one-dimensional): the loss then holds only
        for a two-dimensional ``a``, so ``x`` has one dimension more than ``m``, the class
        dimension: ``x[m]`` selects rows. The ids of the two leaves, else None."""
        ctx = self.ctx
        if any(a.star for a in call.args):
            return None
        pos = [a.value for a in call.args if a.keyword is None]
        kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(pos) != 2 or set(kws) - _CE_KW:
            return None
        red = kws.get("reduction")
        if red is not None and not (
            isinstance(red, cst.SimpleString) and red.evaluated_value in ("mean", "sum")
        ):
            return None
        ig = kws.get("ignore_index")
        if ig is not None and not (
            number_expr(ig) or (isinstance(ig, cst.Attribute) and _init_config(ctx, ig))
        ):
            return None  # a number, or `self.padding_idx` set in `__init__` only
        if any(side_effect(v) is not None for v in kws.values()):
            return None
        a, b = self.row_leaf(pos[0]), self.direct_leaf(self.through_views(pos[1], False))
        if a is None or b is None or a == b:
            return None
        na, xa, _ = self.flow.leaves[a]
        nb, xb, rb = self.flow.leaves[b]
        if rb and self.flow.as_rows and isinstance(nb, cst.Subscript) and len(nb.slice) == 1:
            # read as rows only because the walk started again: the targets are elements,
            # stated below (`m.view(y.shape)`)
            self.flow.leaves[b] = (nb, xb, False)
            self.flow.stated.add(b)
            rb = False
        if rb or not isinstance(na, cst.Subscript) or not _rows_index(na) or na.value is not xa:
            return None  # `a` a plain `x[m]`; gathered rows already are rows of one dim
        m = self.flow.mask
        if isinstance(nb, cst.Subscript) and (len(nb.slice) != 1 or nb.value is not xb):
            return None
        shape = mask_shape(ctx, m, xb, nb)
        if not isinstance(m, cst.Name):
            return None
        if ctx.code(shape.where).strip() != m.value:
            # `b` must be one-dimensional: `m` an element mask of `y`, stated where the
            # targets are read (`m.view(y.shape)` raises for a mask of another size; one of
            # another shape and the same size, the original `y[m]` rejected)
            if not (isinstance(nb, cst.Subscript) and isinstance(xb, (cst.Name, cst.Attribute))):
                return None
            self.flow.stated.add(b)
        return a, b

    def run(self, start: cst.Subscript | cst.Call) -> None:
        ctx, fn = self.ctx, self.fn
        self.loop = innermost_loop(ctx, start, fn)
        if self.loop is not None:
            self.block = self.loop.body
        for sub in _subscripts(fn):
            if _selection_index(ctx, sub) != self.flow.index:
                continue
            if innermost_loop(ctx, sub, fn) is not self.loop:
                if self.loop is None:
                    raise _Stop("a selection with the mask is inside a loop")
                continue  # another iteration's mask: not this flow
            if isinstance(ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del)):
                continue  # a write through the mask: traced as index_put_, no break
            self.todo.append(self.leaf(sub))
        for call in _selection_calls(fn):
            if _selection_index(ctx, call) != self.flow.index:
                continue
            if innermost_loop(ctx, call, fn) is not self.loop:
                if self.loop is None:
                    raise _Stop("a selection with the mask is inside a loop")
                continue
            self.todo.append(self.selected(call))
        for call in _calls(fn):
            name, view = _loss_view(ctx, call)
            pair = self.ce_pair(view) if name in _CE else None
            if pair is not None:
                node, x, _ = self.flow.leaves[pair[0]]
                self.flow.leaves[pair[0]] = (node, x, True)
                self.flow.ce_rows = True
                self.flow.ce_leaves.add(pair[0])
        if not any(
            n is start or any(a is n for a in self.ctx.ancestors(start))
            for n, _, _ in self.flow.leaves.values()
        ):
            raise _Stop("the selection was not found")
        while self.todo:
            e = self.todo.pop()
            if id(e) in self.seen:
                continue
            self.seen.add(id(e))
            self.up(e, self.rows_of(e))
        self.check_operands()

    def rows_of(self, e: cst.BaseExpression) -> bool:
        if id(e) in self.flow.leaves:
            return self.flow.leaves[id(e)][2]
        if id(e) in self.rows:
            return True
        return isinstance(e, cst.Name) and e.value in self.flow.rows_names

    def member(self, e: cst.BaseExpression) -> bool:
        """A flow operand: a leaf, a selection with the mask, a flow name read after its
        binding, a 0-d reduction, a number, or an elementwise step over them."""
        ctx = self.ctx
        if id(e) in self.flow.leaves:
            return True
        if self.counted and isinstance(e, (cst.Name, cst.Attribute)) and self.config_value(e):
            return True
        if isinstance(e, (cst.Subscript, cst.Call)) and _selection_index(ctx, e) == self.flow.index:
            return True
        if number_expr(e) or (isinstance(e, (cst.Name, cst.Attribute)) and ctx.is_number(e)):
            return True
        if isinstance(e, cst.Name):
            line = self.flow.names.get(e.value)
            if line is None:
                return self.scalar_name(e)
            return ctx.span(e)[0] > line
        if isinstance(e, cst.BinaryOperation):
            ok = not isinstance(e.operator, cst.MatrixMultiply)
            return ok and self.member(e.left) and self.member(e.right)
        if isinstance(e, cst.UnaryOperation):
            return self.member(e.expression)
        if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            return self.member(e.left) and self.member(e.comparisons[0].comparator)
        if isinstance(e, cst.Call):
            f = e.func
            if isinstance(f, cst.Attribute) and f.attr.value in _ROW_REDUCE and _dim_last(e):
                # a reduction over the last dim of selected rows: one value per row
                return self.member(f.value) and self.rows_of(f.value)
            if isinstance(e.func, cst.Attribute) and not e.args:
                meth = e.func.attr.value
                if meth in ("sum", "mean", "amax", "amin", "max", "min"):
                    return True  # a 0-d reduction broadcasts against anything
                return meth in _METHODS and self.member(e.func.value)
            tf = _torch_call(ctx, e)
            pos = [a.value for a in e.args if a.keyword is None and not a.star]
            if len(pos) != len(e.args):
                return False
            if tf in _FUNCS and len(pos) == 1:
                return self.member(pos[0])
            if tf in _BINARY and len(pos) == 2 and _is_torch(ctx, e):
                return all(self.member(p) for p in pos)
            if tf in ("sum", "mean") and len(pos) == 1 and _is_torch(ctx, e):
                return True
        return False

    def scalar_name(self, e: cst.Name) -> bool:
        """``e`` is bound once in the function, before its read, to a 0-d reduction of a
        tensor that is not a selection (``pos_mean = sim.diagonal().mean()``): it broadcasts
        against anything, as a number does."""
        ctx = self.ctx
        binds = bound_names(self.fn.body).get(e.value, [])
        if len(binds) != 1 or ctx.span(binds[0])[0] >= ctx.span(e)[0]:
            return False
        a = ctx.parent(binds[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return False
        v = a.value
        if not isinstance(v, cst.Call) or v.args or not isinstance(v.func, cst.Attribute):
            return False
        if v.func.attr.value not in ("sum", "mean", "amax", "amin", "max", "min", "norm"):
            return False
        return not any(
            isinstance(n, cst.Subscript) and _selection_index(ctx, n) == self.flow.index
            for n in _subscripts_in(v)
        )

    # -- walking up from a member -----------------------------------------------------
    def up(self, e: cst.BaseExpression, rows: bool) -> None:
        ctx = self.ctx
        p = ctx.parent(e)
        if (
            isinstance(p, cst.BinaryOperation)
            and isinstance(p.operator, cst.MatrixMultiply)
            and p.left is e
            and self.free(p.right)
            and two_dim(ctx, p.right)
        ):
            return self.row_step(e, p, MIX, rows)  # `rows @ W`: each row times W
        if isinstance(p, cst.BinaryOperation) and not isinstance(p.operator, cst.MatrixMultiply):
            other = p.right if p.left is e else p.left
            if isinstance(p.operator, (cst.Add, cst.Subtract, cst.Multiply)) and row_vector(
                ctx, other
            ):
                return self.row_step(e, p, MIX, rows)  # `+ self.bias`: the same for every row
            self.operand(other, p, rows)
            if not isinstance(p.operator, _SAFE_OPS):
                if not (
                    isinstance(p.operator, cst.Power)
                    and p.left is e
                    and isinstance(p.right, cst.Integer)
                ):
                    self.flow.safe = False
            return self.push(p, rows)
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.BitInvert)):
            return self.push(p, rows)
        if isinstance(p, cst.ComparisonTarget):
            p = ctx.parent(p)  # `a == e`: e is the comparator
        if isinstance(p, cst.Comparison) and len(p.comparisons) == 1:
            other = p.comparisons[0].comparator if p.left is e else p.left
            self.operand(other, p, rows)
            return self.push(p, rows)
        if isinstance(p, cst.Attribute) and p.value is e:
            call = ctx.parent(p)
            if rows and p.attr.value == "shape" and isinstance(call, cst.Subscript):
                if _row_size(ctx, call, e):
                    return None  # `r.shape[-1]` of rows: the row size, a static number
            if not (isinstance(call, cst.Call) and call.func is p):
                raise self.stop(e)
            return self.method(e, call, p.attr.value, rows)
        if isinstance(p, cst.Arg) and p.keyword is None and not p.star:
            call = ctx.parent(p)
            if isinstance(call, cst.Call):
                return self.function(e, call, rows)
        if isinstance(p, cst.Assign) and p.value is e:
            if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                raise _Stop("a flow value is assigned to something other than one name")
            return self.bind(p, p.targets[0].target, rows)
        if isinstance(p, cst.Element):
            got = _tuple_target(ctx, e, p)
            if got is not None:
                return self.bind(got[0], got[1], rows)
        raise self.stop(e)

    def operand(self, other: cst.BaseExpression, at: cst.CSTNode, rows: bool | None = None) -> None:
        """Checked once the walk is done: a flow name may be bound later in the walk.
        ``rows``: whether the value ``other`` meets holds rows (a flow value on the other
        side must too: rows against one value per row broadcast over another dim)."""
        self.pending.append((other, at, rows))

    def check_operands(self) -> None:
        for a, reached in self.flow.rebinds.values():
            if not reached:
                name = self.ctx.code(a.targets[0].target).strip()
                raise _Stop(
                    f"`{name}` is bound again after the selection, to a value not computed from it"
                )
        self.counted = any(v[2] == "bincount" for v in self.flow.terminals.values())
        for other, at, rows in self.pending:
            if not self.member(other):
                raise self.foreign(other, at)
            if rows is not None and id(other) in self.seen and self.rows_of(other) != rows:
                leaf = self.direct_leaf(other) if rows is False else None
                if self.flow.as_rows and leaf is not None and leaf not in self.flow.element_leaves:
                    raise _NeedElements(leaf)
                leaf = self.direct_leaf(at_side(at, other)) if rows is True else None
                if self.flow.as_rows and leaf is not None and leaf not in self.flow.element_leaves:
                    raise _NeedElements(leaf)
                raise _Stop(
                    f"`{self.ctx.code(at).strip()[:60]}` combines rows with one value per row "
                    "(the full-size values would broadcast over another dim)"
                )

    def config_value(self, e: cst.BaseExpression) -> bool:
        """A number the model is configured with, in a flow that ends in ``bincount`` (bin
        indices are integers; the verifier checks the counts): ``self.num_classes`` set only
        in ``__init__`` from its parameters or numbers, or a name bound once, before, to one
        (``n = self.num_classes``), or a parameter of the function that is not a tensor."""
        ctx = self.ctx
        if ctx.static_tensor(e):
            return False
        if isinstance(e, cst.Attribute):
            return _init_config(ctx, e)
        if not isinstance(e, cst.Name):
            return False
        binds = bound_names(self.fn.body).get(e.value, [])
        if not binds:
            return e.value in {p.name.value for p in self.fn.params.params} and not any(
                ctx.is_tensor(r) for r in name_nodes(self.fn.body, e.value)
            )
        if len(binds) != 1 or ctx.span(binds[0])[0] >= ctx.span(e)[0]:
            return False
        a = ctx.parent(binds[0])
        if not isinstance(a, cst.Assign) or len(a.targets) != 1:
            return False
        return number_expr(a.value) or (
            isinstance(a.value, cst.Attribute) and _init_config(ctx, a.value)
        )

    def foreign(self, other: cst.BaseExpression, at: cst.CSTNode) -> _Stop:
        return _Stop(
            f"`{self.ctx.code(other).strip()}` in `{self.ctx.code(at).strip()[:60]}` is not "
            "selected with the same mask (its shape is not the selection's)"
        )

    def push(self, e: cst.BaseExpression, rows: bool) -> None:
        if rows:
            self.rows.add(id(e))
        self.todo.append(e)

    def method(self, e: cst.BaseExpression, call: cst.Call, name: str, rows: bool) -> None:
        if name == "bincount" and not rows:
            return self.bincount(e, call, method=True)
        if self.identity_view(e, call, rows):
            self.flow.identity[id(call)] = call
            return self.push(call, rows)
        if name == "size" and rows and _row_size(self.ctx, call, e):
            return None  # `r.size(-1)` of rows: the row size, a static number
        if not rows and _cast_or_flat(self.ctx, call, name):
            self.flow.flat |= name in ("view", "reshape", "flatten")
            return self.push(call, rows)
        if name in _METHODS and not call.args:
            self.flow.safe &= _METHODS[name]
            return self.push(call, rows)
        if name == "pow" and len(call.args) == 1 and not call.args[0].keyword:
            a = call.args[0].value
            if not (isinstance(a, cst.Integer) and int(a.value) >= 1):
                self.flow.safe = False
            if not number_expr(a):
                raise self.stop(e)
            return self.push(call, rows)
        if name == "clamp" and all(
            a.keyword is not None and a.keyword.value in ("min", "max") and number_expr(a.value)
            for a in call.args
        ):
            return self.push(call, rows)
        if (
            name in _ROW_REDUCE
            and not rows
            and _dim_last(call)
            and not (self.flow.as_rows or self.flow.unordered or self.flow.flat)
        ):
            raise _NeedRows  # one value per row: of rows only (of elements: a reduction)
        if name in _ROW_REDUCE and rows and _dim_last(call):
            if name == "norm":
                self.flow.safe = False
            return self.push(call, False)
        if name in ("sum", "mean") and not call.args:
            return self.terminal(call, e, name, rows)
        if name in _FILLED and not call.args:
            return self.terminal(call, e, name, rows)
        if name == "logsumexp" and not rows and _lse_dim0(call, 0):
            return self.terminal(call, e, name, rows)
        if (
            name in ("sum", "mean")
            and rows
            and _dim0(call)
            and not self.flow.ce_rows
            and not self.flow.as_rows
        ):
            return self.terminal(call, e, name, rows)
        if name in _FIRST_DIM and _dim0(call):
            return self.first_dim(e, call, name, rows)
        if name == "numel" and not call.args and isinstance(e, cst.Name) and not rows:
            return self.count(call)
        kind = call_step(self.ctx, call, e, self.free)
        if kind is not None:
            return self.row_step(e, call, kind, rows)
        raise self.stop(e)

    def row_step(
        self, e: cst.BaseExpression, step: cst.BaseExpression, kind: str, rows: bool
    ) -> None:
        """A row-wise step (:mod:`rowwise`) of the flow value ``e``: kept on the full-size
        value. One that combines a row's elements needs ``e`` to hold rows (known, or read as
        rows: the walk starts again with :attr:`_Flow.as_rows`)."""
        if kind == MIX and not rows:
            if self.flow.as_rows or self.flow.unordered or self.flow.flat:
                raise self.stop(e)  # values per row (`.sum(-1)`) or elements out of order
            raise _NeedRows
        self.flow.safe = False  # the rows left out are computed: from finite leaves
        self.flow.row_steps += 1
        return self.push(step, rows)

    def function(self, e: cst.BaseExpression, call: cst.Call, rows: bool) -> None:
        ctx = self.ctx
        mod = loss_module(ctx, call.func)
        if mod is not None:
            return self.module_loss(e, call, rows, *mod)
        f = _torch_call(ctx, call)
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        if f in _CE and not _is_torch(ctx, call):
            if self.ce_pair(call) is None:
                if not self.flow.as_rows and pos and self.row_leaf(pos[0]) is not None:
                    raise _NeedRows  # the logits: rows (of `x[m, :]`) through row-wise steps
                raise self.stop(e)
            self.flow.safe = False  # the rows the mask leaves out read 1, not their values
            self.flow.terminals[id(call)] = (call, e, "ce", False)
            return None
        if f in _LOSSES and (not rows or self.flow.as_rows):
            return self.loss(e, call)
        if f == "one_hot" and not rows and self.one_hot_of(e, call):
            self.flow.one_hot[id(call)] = call
            return self.push(call, True)  # one row per selected element
        if f == "logsumexp" and _is_torch(ctx, call) and not rows and _lse_dim0(call, 1):
            return self.terminal(call, e, f, rows)
        if f == "bincount" and _is_torch(ctx, call) and not rows:
            return self.bincount(e, call, method=False)
        if f in _FILLED and _is_torch(ctx, call) and pos and pos[0] is e:
            if len(call.args) == 1:
                return self.terminal(call, e, f, rows)
        if f in _EXTREMA and _is_torch(ctx, call) and pos and pos[0] is e:
            if _dim0(call, skip=1):
                return self.first_dim(e, call, f, rows)
            if f in _BINARY and len(pos) == 2 and isinstance(pos[1], cst.Integer):
                raise self.stop(e)  # `torch.max(x, 1)`: a reduction over another dim
        kind = call_step(ctx, call, e, self.free)
        if kind is not None and not (f in _FUNCS and len(call.args) == 1):
            return self.row_step(e, call, kind, rows)
        if len(pos) != len(call.args):
            raise self.stop(e)
        if f in _FUNCS and len(pos) == 1:
            self.flow.safe &= _FUNCS[f]
            return self.push(call, rows)
        if f in _BINARY and len(pos) == 2 and f != "" and _is_torch(ctx, call):
            for o in pos:
                if o is not e:
                    self.operand(o, call)
            return self.push(call, rows)
        if f in ("sum", "mean") and len(pos) == 1 and _is_torch(ctx, call):
            if rows and self.flow.ce_rows:
                raise self.stop(e)
            return self.terminal(call, e, f, rows)
        if f == "logsumexp" and _is_torch(ctx, call) and not rows and _lse_dim0(call, 1):
            return self.terminal(call, e, f, rows)
        if f in _LOSSES and (not rows or self.flow.as_rows):
            return self.loss(e, call)
        if isinstance(call.func, cst.Name) and call.func.value == "len" and not rows:
            if isinstance(e, cst.Name):
                return self.count(call)
        raise self.stop(e)

    def module_loss(
        self, e: cst.BaseExpression, call: cst.Call, rows: bool, fname: str, ctor: list[cst.Arg]
    ) -> None:
        """``self.crit(a, b)`` with ``self.crit = nn.L1Loss(...)`` (``MSELoss``,
        ``SmoothL1Loss``, ``HuberLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``SoftMarginLoss``;
        ``CrossEntropyLoss``, ``NLLLoss``) built once in ``__init__``: the module's forward is
        the functional loss with the module's options, so the call is followed as
        ``F.<loss>(a, b, <options>)`` is."""
        if any(a.keyword is not None or a.star for a in call.args):
            raise self.stop(e)
        view = call.with_changes(args=[*call.args, *ctor])
        if fname in _CE:
            if self.ce_pair(view) is None:
                raise self.stop(e)
            self.flow.safe = False
            self.flow.modules[id(call)] = (fname, ctor)
            self.flow.terminals[id(call)] = (call, e, "ce", False)
            return None
        if rows or fname not in _LOSSES:
            raise self.stop(e)
        self.loss(e, view, at=call)
        self.flow.modules[id(call)] = (fname, ctor)
        return None

    def loss(self, e: cst.BaseExpression, call: cst.Call, at: cst.Call | None = None) -> None:
        """``F.l1_loss(a, b)`` of two flow values (mean or sum): a terminal whose per-element
        form is the loss with ``reduction="none"``. ``at``: the module call ``call`` is the
        functional view of."""
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(pos) != 2 or len(pos) + len(kws) != len(call.args) or set(kws) - _LOSS_KW:
            raise self.stop(e)
        red = kws.get("reduction")
        op = "mean"
        if red is not None:
            if not isinstance(red, cst.SimpleString) or red.evaluated_value not in ("mean", "sum"):
                raise self.stop(e)
            op = str(red.evaluated_value)
        at = at if at is not None else call
        rows = self.rows_of(e)
        if rows and op == "mean" and not any(isinstance(p, cst.Name) for p in pos):
            raise _Stop(
                f"`{self.ctx.code(at).strip()[:50]}` averages rows and neither input is a "
                "name: the row size is read from one"
            )
        for o in pos:
            if o is not e:
                self.operand(o, at)
        self.flow.terminals[id(at)] = (at, e, "loss:" + op, rows)

    def bincount(self, e: cst.BaseExpression, call: cst.Call, *, method: bool) -> None:
        """``torch.bincount(i, minlength=K)`` (``weights=w``; ``i.bincount(...)``) of flow
        values: a terminal counting the selected positions into ``K`` bins."""
        got = bincount_args(call, method=method)
        if got is None:
            raise _Stop(
                f"`{self.ctx.code(call).strip()[:50]}` has no `minlength=` (or unpacks its "
                "arguments): its size is only known from the data; pass the number of bins"
            )
        idx, w, _ = got
        for o in (idx, w):
            if o is not None and o is not e:
                self.operand(o, call)
        self.flow.terminals[id(call)] = (call, e, "bincount", False)

    def count(self, call: cst.Call) -> None:
        """``len(n)`` / ``n.numel()`` in arithmetic becomes ``m.sum()`` (a 0-d tensor); as a
        Python number (a branch, a size) it must stay one."""
        if self.flow.unordered and not isinstance(call.func, cst.Attribute):
            raise _Stop(
                f"`{self.ctx.code(call).strip()}` counts rows and the mask indexes an inner "
                "dimension: the row count is not the mask's"
            )
        if not isinstance(self.ctx.parent(call), cst.BinaryOperation):
            raise _Stop(
                f"the count `{self.ctx.code(call).strip()}` is used as a Python number (not in "
                "arithmetic): as `mask.sum()` it would be a tensor"
            )
        self.flow.counts.append(call)

    def first_dim(self, e: cst.BaseExpression, call: cst.Call, op: str, rows: bool) -> None:
        """``sel.mean(0)``, ``sel.amax(0)``, ``sel.max(dim=0).values`` (``[0]``),
        ``torch.amax(sel, 0)``: a reduction over the selection's first dimension, whose
        positions are the mask's (flattened): one value per trailing position of a row
        selection, or the value of a one-dimensional one. Not of a selection whose elements
        are in another order (``x[:, m]``), nor of rows a cross-entropy reads; of ``max``/``min``
        only the values (the indices would count the full-size rows)."""
        if self.flow.unordered or self.flow.ce_rows:
            raise self.stop(e)
        if op in ("max", "min") and not _values_of(self.ctx, call):
            raise self.stop(e)
        self.flow.first_dim.add(id(call))
        self.flow.terminals[id(call)] = (call, e, op, rows)

    def terminal(self, call: cst.Call, recv: cst.BaseExpression, op: str, rows: bool) -> None:
        if (
            rows
            and not call.args
            and op == "mean"
            and not (self.flow.as_rows and isinstance(recv, cst.Name))
        ):
            raise _Stop(
                "a mean over every element of gathered rows: the row size is not known here"
            )
        self.flow.terminals[id(call)] = (call, recv, op, rows)
        # a 0-d reduction may be an operand of later flow steps; its own parent is free
        return None

    def bind(self, assign: cst.Assign, target: cst.Name, rows: bool) -> None:
        """``target`` (one name of ``assign``'s targets; an element of a tuple target too)
        is bound to a flow value: its later reads are flow members."""
        ctx, fn = self.ctx, self.fn
        name = target.value
        line = ctx.span(assign)[0]
        stmt = ctx.statement(assign)
        if stmt is None or ctx.parent(stmt) is not self.block:
            raise _Stop(f"`{name}` is bound inside a branch or a loop")
        if self.loop is not None and any(
            r is not target
            and ctx.span(r)[0] <= line
            and any(a is self.loop for a in ctx.ancestors(r))
            for r in name_nodes(self.loop, name)
        ):
            raise _Stop(f"`{name}` is read in the loop before it is bound (a previous value)")
        if name in self.flow.names:
            # a later binding of a flow name, reached by the walk: a flow value too
            if rows != (name in self.flow.rows_names) or id(assign) not in self.flow.rebinds:
                raise _Stop(f"`{name}` is bound again after the selection")
            self.flow.rebinds[id(assign)] = (assign, True)
            return None
        later = [b for b in bound_names(fn.body).get(name, []) if ctx.span(b)[0] > line]
        for b in later:
            # `target = (target - mean) / std`: allowed when the walk reaches every later
            # binding (checked once it is done): each read after the first is a flow value
            a = ctx.parent(b)
            if not (
                isinstance(b, cst.AssignTarget)
                and isinstance(a, cst.Assign)
                and len(a.targets) == 1
                and (held := ctx.statement(a)) is not None
                and ctx.parent(held) is self.block
            ):
                raise _Stop(f"`{name}` is bound again after the selection")
            self.flow.rebinds[id(a)] = (a, False)
        self.flow.names[name] = line
        if rows:
            self.flow.rows_names.add(name)
        for r in name_nodes(fn.body, name):
            if r is target or ctx.span(r)[0] <= line or isinstance(ctx.parent(r), cst.AssignTarget):
                continue
            if ctx.function(r) is not fn:
                raise _Stop(f"`{name}` is read in a nested function")
            self.todo.append(r)
        return None

    def stop(self, e: cst.BaseExpression) -> _Stop:
        ctx = self.ctx
        stmt = ctx.statement(e)
        use = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else ctx.code(e)
        what = ctx.code(e).strip()
        use = use if len(use) <= 70 else use[:67] + "..."
        return _Stop(
            f"`{what[:40]}` is used in `{use}`, not only in elementwise steps ending in "
            f"reductions (sum, mean) or counts{self.local_function(e)}"
        )

    def local_function(self, e: cst.BaseExpression) -> str:
        """Where ``e`` is passed to a function defined at the top of this file (a copied
        ``sigmoid_focal_loss``, a ``bbox_iou`` helper): what the codemod does not follow
        there, and the remedy that keeps the shape when the function acts on each element."""
        ctx = self.ctx
        p = ctx.parent(e)
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return ""
        name = call.func.value
        fn = next(
            (d for d in ctx.module.body if isinstance(d, cst.FunctionDef) and d.name.value == name),
            None,
        )
        if fn is None:
            return ""
        params = {q.name.value for q in (*fn.params.params, *fn.params.kwonly_params)}
        if "reduction" in params:
            return (
                f" (`{name}` is a function of this file, which the codemod does not follow: "
                f"if it acts on each element until its `reduction`, call it on the full-size "
                f'tensors with `reduction="none"` and reduce with the mask, '
                f'`torch.where(m, {name}(x, y, reduction="none"), 0).sum()`)'
            )
        return (
            f" (`{name}` is a function of this file, which the codemod does not follow: if "
            "it acts on each element or row alone, call it on the full-size tensors and "
            "reduce its result with the mask)"
        )


def _rows_index(sub: cst.Subscript) -> bool:
    """``x[m]``, ``x[m, :]``, ``x[m, ...]``: the mask alone selects (whole rows)."""
    if len(sub.slice) == 1:
        return True
    if len(sub.slice) != 2:
        return False
    rest = sub.slice[1].slice
    if isinstance(rest, cst.Index):
        return isinstance(rest.value, cst.Ellipsis)
    if not isinstance(rest, cst.Slice):
        return False
    return rest.lower is None and rest.upper is None and rest.step is None


def _init_config(ctx: FixContext, e: cst.Attribute) -> bool:
    """``self.X`` assigned only in ``__init__``, from its parameters or numbers."""
    if self_attr(e) is None:
        return False
    cls = ctx.enclosing(e, cst.ClassDef)
    if cls is None:
        return False
    found = False
    for meth in cls.body.body:
        if not isinstance(meth, cst.FunctionDef):
            continue
        params = {p.name.value for p in meth.params.params}
        for node in _assigns(meth):
            for t in node.targets:
                tt = t.target
                if self_attr(tt) != e.attr.value:
                    continue
                v = node.value
                if meth.name.value != "__init__" or not (
                    number_expr(v) or (isinstance(v, cst.Name) and v.value in params)
                ):
                    return False
                found = True
    return found


def _assigns(fn: cst.FunctionDef) -> list[cst.Assign]:
    out: list[cst.Assign] = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            out.append(n)

    fn.visit(V())
    return out


def bincount_args(
    call: cst.Call, *, method: bool
) -> tuple[cst.BaseExpression, cst.BaseExpression | None, cst.BaseExpression] | None:
    """(indices, weights or None, minlength) of ``torch.bincount(i, w, K)`` / ``i.bincount(
    ...)`` (keywords too), or None without a ``minlength``."""
    if any(a.star for a in call.args):
        return None
    pos = [a.value for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if method:
        assert isinstance(call.func, cst.Attribute)
        idx: cst.BaseExpression | None = call.func.value
    else:
        idx = pos.pop(0) if pos else kw.pop("input", None)
    if len(pos) > 2:
        return None
    for key, v in zip(("weights", "minlength"), pos, strict=False):
        if key in kw:
            return None
        kw[key] = v
    if idx is None or "minlength" not in kw or set(kw) - {"weights", "minlength"}:
        return None
    w = kw.get("weights")
    if isinstance(w, cst.Name) and w.value == "None":
        w = None
    return idx, w, kw["minlength"]


_INT_DTYPES = frozenset({"long", "int", "int64", "int32", "int16", "int8", "uint8"})


def _row_size(ctx: FixContext, node: cst.BaseExpression, recv: cst.BaseExpression) -> bool:
    """``node`` is ``recv.size(-1)`` or ``recv.shape[-1]``: the size of the last dim."""
    if isinstance(node, cst.Call):
        return (
            isinstance(node.func, cst.Attribute)
            and node.func.value is recv
            and node.func.attr.value == "size"
            and len(node.args) == 1
            and node.args[0].keyword is None
            and ctx.code(node.args[0].value).strip() == "-1"
        )
    if isinstance(node, cst.Subscript):
        return (
            isinstance(node.value, cst.Attribute)
            and node.value.value is recv
            and node.value.attr.value == "shape"
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and ctx.code(node.slice[0].slice.value).strip() == "-1"
        )
    return False


def _cast_or_flat(ctx: FixContext, call: cst.Call, name: str) -> bool:
    """``.long()``/``.int()``, ``.to(torch.long)`` (an integer dtype), ``.view(-1)``,
    ``.reshape(-1)``, ``.flatten()``: the same values per position."""
    if any(a.keyword is not None or a.star for a in call.args):
        return False
    args = [ctx.code(a.value).strip() for a in call.args]
    if name in ("long", "int") and not args:
        return True
    if name == "to" and len(args) == 1:
        head, _, last = args[0].rpartition(".")
        return head == ctx.torch() and last in _INT_DTYPES
    if name in ("view", "reshape") and args == ["-1"]:
        return True
    return name == "flatten" and not args


def _tuple_target(
    ctx: FixContext, e: cst.BaseExpression, el: cst.Element
) -> tuple[cst.Assign, cst.Name] | None:
    """``(assign, name)`` when ``e`` is an element of a tuple assigned to a tuple of names of
    the same length (``preds, target = preds[valid], target[valid]``): ``e`` is bound to the
    name at its position, as a single assignment would bind it. None otherwise."""
    seq = ctx.parent(el)
    assign = ctx.parent(seq) if isinstance(seq, (cst.Tuple, cst.List)) else None
    if not isinstance(assign, cst.Assign) or assign.value is not seq or len(assign.targets) != 1:
        return None
    tgt = assign.targets[0].target
    if not isinstance(tgt, (cst.Tuple, cst.List)):
        return None
    values, names = seq.elements, tgt.elements  # type: ignore[attr-defined, union-attr]
    if len(values) != len(names) or not all(
        type(v) is cst.Element and type(n) is cst.Element and isinstance(n.value, cst.Name)
        for v, n in zip(values, names, strict=True)
    ):
        return None
    spelled = [n.value.value for n in names]  # type: ignore[attr-defined, union-attr]
    if len(set(spelled)) != len(spelled):
        return None
    i = next(i for i, v in enumerate(values) if v is el)
    return assign, names[i].value  # type: ignore[return-value]


@dataclass(frozen=True)
class MaskShape:
    """How a rewrite reads the mask ``m`` of selections from ``x``: ``where`` is what
    ``torch.where`` takes (``m``, or ``m`` with a trailing 1 per dimension of ``x`` it lacks,
    a **row mask** broadcast over the rest: ``box_pred[pos]`` with ``pos`` of ``[N]`` and
    ``box_pred`` of ``[N, 4]``), ``elements`` the count of the selected elements (a mean's
    divisor, ``numel``), ``rows`` the count of the selected rows (``len``)."""

    where: cst.BaseExpression
    elements: cst.BaseExpression
    rows: cst.BaseExpression
    # `pos_b = pos.reshape(...)`: the broadcast mask bound once (``where`` is then its name)
    binding: cst.SimpleStatementLine | None = None


def reference_tensor(ctx: FixContext, x: cst.BaseExpression) -> cst.BaseExpression | None:
    """A plain name (or attribute) in ``x`` whose rank is the selection's: ``x`` itself, an
    operand of its arithmetic (``(a - b)[m]``: ``a``), the receiver of a step (``a.abs()``)."""
    if isinstance(x, (cst.Name, cst.Attribute)):
        return None if ctx.is_number(x) or side_effect(x) is not None else x
    if isinstance(x, cst.BinaryOperation):
        return reference_tensor(ctx, x.left) or reference_tensor(ctx, x.right)
    if isinstance(x, cst.UnaryOperation):
        return reference_tensor(ctx, x.expression)
    if isinstance(x, cst.Call) and isinstance(x.func, cst.Attribute) and not x.args:
        return reference_tensor(ctx, x.func.value)
    if (
        isinstance(x, cst.Call)
        and isinstance(x.func, cst.Attribute)
        and x.func.attr.value == "movedim"
        and all(number_expr(a.value) and a.keyword is None for a in x.args)
    ):
        inner = reference_tensor(ctx, x.func.value)
        return None if inner is None else x  # `h.movedim(1, 0)`: the dims in the selection's order
    if (
        isinstance(x, cst.Subscript)
        and isinstance(x.value, (cst.Name, cst.Attribute))
        and reference_tensor(ctx, x.value) is not None
        and all(
            isinstance(e.slice, cst.Slice) or number_expr(e.slice.value)  # type: ignore[attr-defined, union-attr]
            for e in x.slice
        )
    ):
        return x  # a basic index (`x[:, :4]`, `x[:, 0]`): its own rank
    return None


def _built_from(ctx: FixContext, m: cst.Name, ref: cst.BaseExpression, at: cst.CSTNode) -> bool:
    """Every binding of ``m`` in the function computes it by elementwise steps from ``ref``
    or from another tensor selected with ``m`` (``valid = gt > 0`` for ``pred[valid]`` and
    ``gt[valid]``): an element mask of the selections' shape."""
    fn = ctx.function(at)
    if fn is None:
        return False
    texts = {ctx.code(ref).strip()} | {
        ctx.code(sub.value).strip()
        for sub in _subscripts(fn)
        if _selection_index(ctx, sub) == m.value
    }
    binds = bound_names(fn.body).get(m.value, [])
    if not binds:
        return False
    for b in binds:
        a = ctx.parent(b) if isinstance(b, cst.AssignTarget) else None
        if not isinstance(a, cst.Assign) or not any(
            _elementwise_of(ctx, a.value, t) for t in texts
        ):
            return False
    return True


def _elementwise_of(ctx: FixContext, e: cst.BaseExpression, text: str) -> bool:
    """``e`` is ``text`` compared with or combined elementwise with numbers (``gt > 0``,
    ``(x != pad) & (x > 0)``, ``torch.isfinite(x)``, ``~x.isnan()``)."""
    if ctx.code(e).strip() == text:
        return True
    if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
        sides = [e.left, e.comparisons[0].comparator]
        # a threshold: a number, or a name or attribute (`self.max_depth`) taken as a scalar
        return any(_elementwise_of(ctx, s, text) for s in sides) and all(
            number_expr(s)
            or isinstance(s, (cst.Name, cst.Attribute))
            or _elementwise_of(ctx, s, text)
            for s in sides
        )
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr)):
        return _elementwise_of(ctx, e.left, text) and _elementwise_of(ctx, e.right, text)
    if isinstance(e, cst.UnaryOperation):
        return _elementwise_of(ctx, e.expression, text)
    if isinstance(e, cst.Call) and not e.args and isinstance(e.func, cst.Attribute):
        return e.func.attr.value in _ELEMENTWISE_TESTS and _elementwise_of(ctx, e.func.value, text)
    if (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value in _COMPARE_METHODS
        and len(e.args) == 1
        and e.args[0].keyword is None
        and not e.args[0].star
    ):
        # `x.ne(pad)`, `x.eq(self.ignore_index)`: a comparison with a scalar, as `x != pad`
        o = e.args[0].value
        return (number_expr(o) or isinstance(o, (cst.Name, cst.Attribute))) and _elementwise_of(
            ctx, e.func.value, text
        )
    if isinstance(e, cst.Call) and len(e.args) == 1 and _torch_call(ctx, e) in _ELEMENTWISE_TESTS:
        return _elementwise_of(ctx, e.args[0].value, text)
    return False


_ELEMENTWISE_TESTS = frozenset({"isfinite", "isnan", "isinf", "logical_not", "bool", "abs"})
_COMPARE_METHODS = frozenset({"ne", "eq", "gt", "ge", "lt", "le"})


def mask_shape(
    ctx: FixContext,
    m: cst.BaseExpression,
    x: cst.BaseExpression,
    at: cst.CSTNode,
    *,
    named: bool = False,
    source: cst.BaseExpression | None = None,
) -> MaskShape:
    """The mask as the rewrite of the selection ``x[m]`` at ``at`` reads it. An element mask
    when ``m`` is computed from ``x`` itself (or is not a plain name); otherwise its rank is
    not known here, and the rewrite is **rank-agnostic**: ``m.reshape(m.shape + (1,) *
    (ref.dim() - m.dim()))`` is ``m`` for an element mask and ``m`` with trailing ones for a
    row mask (ranks are static under dynamo: no guard, no break), and the element count is
    ``that.expand_as(ref).sum()``. ``source``: the expression a fresh mask name is bound to."""
    plain = MaskShape(m, template("__m__.sum()", m=atom(m)), template("__m__.sum()", m=atom(m)))
    ref = reference_tensor(ctx, x)
    if (
        not isinstance(m, cst.Name)
        or ref is None
        or ctx.code(ref).strip() == m.value
        or _built_from(ctx, m, ref, at)
        or (source is not None and _elementwise_of(ctx, source, ctx.code(ref).strip()))
    ):
        return plain
    w = template("__m__.reshape(__m__.shape + (1,) * (__r__.dim() - __m__.dim()))", m=m, r=ref)
    binding = None
    if named:
        name = cst.Name(ctx.fresh_name(f"{m.value}_b", reserve=False))
        binding = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name)], w)])
        w = name
    elements = template("__w__.expand_as(__r__).sum()", w=w, r=ref)
    return MaskShape(w, elements, plain.rows, binding)


def shaped_changes(
    ctx: FixContext,
    m: cst.BaseExpression,
    x: cst.BaseExpression,
    at: cst.CSTNode,
    build: Callable[[MaskShape], list[tuple[cst.CSTNode, cst.CSTNode]]],
) -> list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]]:
    """The changes ``build`` makes for the mask as :func:`mask_shape` gives it: a row-capable
    broadcast bound once to a name where it can be, else written inline."""
    shape = mask_shape(ctx, m, x, at, named=True)
    got = bind_mask(ctx, build(shape), shape)
    if got is None:
        got = list(build(mask_shape(ctx, m, x, at)))
    return got


def bind_mask(
    ctx: FixContext,
    changes: list[tuple[cst.CSTNode, cst.CSTNode]],
    shape: MaskShape,
) -> list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] | None:
    """``changes`` with ``shape``'s binding put before the first changed statement (the
    changes in that statement made there), or None where it cannot go there (the first change
    is not in a plain statement of a block that holds the others, or the mask is bound again
    after it): the caller then writes the broadcast inline."""
    if shape.binding is None:
        return list(changes)
    first = min(changes, key=lambda c: ctx.span(c[0])[0])[0]
    stmt = ctx.statement(first)
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    block = ctx.parent(stmt)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    line = ctx.span(stmt)[0]
    for node, _ in changes:
        if ctx.statement(node) is not stmt and not any(a is block for a in ctx.ancestors(node)):
            return None
    fn = ctx.function(stmt)
    names = {n.value for n in name_nodes(shape.binding)}
    if fn is None or any(
        ctx.span(b)[0] >= line for n in names for b in bound_names(fn.body).get(n, [])
    ):
        return None
    inside = {id(n): new for n, new in changes if ctx.statement(n) is stmt}
    rest = [(n, new) for n, new in changes if ctx.statement(n) is not stmt]
    new_stmt = stmt.visit(_Apply({k: _built(v) for k, v in inside.items()}))
    bind = shape.binding.with_changes(leading_lines=stmt.leading_lines)
    new_stmt = new_stmt.with_changes(leading_lines=[])  # type: ignore[union-attr]
    target = shape.where
    if isinstance(target, cst.Name):
        ctx.fresh_name(target.value)  # reserved now that it is used
    return [(stmt, cst.FlattenSentinel([bind, new_stmt])), *rest]  # type: ignore[list-item]


def _lse_dim0(call: cst.Call, skip: int) -> bool:
    """``logsumexp`` over dim 0 of a selection (one dim: all its elements), no ``keepdim``;
    ``skip``: the positional arguments before ``dim`` (the tensor of the function form)."""
    args = list(call.args)[skip:]
    if len(args) != 1 or args[0].star:
        return False
    a = args[0]
    if a.keyword is not None and a.keyword.value != "dim":
        return False
    return isinstance(a.value, cst.Integer) and a.value.value == "0"


# loss modules whose forward is the functional loss with the module's options
_LOSS_MODULES = {
    "L1Loss": "l1_loss",
    "MSELoss": "mse_loss",
    "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss",
    "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "SoftMarginLoss": "soft_margin_loss",
    "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
}


def loss_module(ctx: FixContext, func: cst.BaseExpression) -> tuple[str, list[cst.Arg]] | None:
    """(functional name, the constructor's keyword arguments) of ``self.X`` when the class
    binds ``self.X`` once, in ``__init__``, to ``nn.<Loss>(kw=...)`` (keywords only, each a
    number or a string) and nowhere else; of a local name bound once in the function, before
    the call, to such a constructor (``loss_fct = nn.BCEWithLogitsLoss()``, the transformers
    heads' form); None otherwise."""
    attr = self_attr(func)
    if attr is None:
        return _local_loss_module(ctx, func)
    cls = ctx.enclosing(func, cst.ClassDef)
    if cls is None:
        return None
    found: list[tuple[str, cst.Assign]] = []
    for meth in cls.body.body:
        if not isinstance(meth, cst.FunctionDef):
            continue
        for node in _assigns(meth):
            for t in node.targets:
                if self_attr(t.target) == attr:
                    found.append((meth.name.value, node))
    if len(found) != 1 or found[0][0] != "__init__":
        return None
    return _loss_ctor(ctx, found[0][1].value)


def _loss_ctor(ctx: FixContext, v: cst.BaseExpression) -> tuple[str, list[cst.Arg]] | None:
    """(functional name, keyword arguments) of ``nn.<Loss>(kw=...)`` (keywords only, each a
    number or a string)."""
    if not isinstance(v, cst.Call):
        return None
    head, _, last = ctx.code(v.func).strip().rpartition(".")
    if last not in _LOSS_MODULES or head not in ("nn", f"{ctx.torch()}.nn"):
        return None
    if any(a.keyword is None or a.star for a in v.args):
        return None
    if not all(number_expr(a.value) or isinstance(a.value, cst.SimpleString) for a in v.args):
        return None
    ctor = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in v.args]
    return _LOSS_MODULES[last], ctor


def _local_loss_module(
    ctx: FixContext, func: cst.BaseExpression
) -> tuple[str, list[cst.Arg]] | None:
    """``loss_fct(a, b)`` with ``loss_fct = nn.CrossEntropyLoss(...)`` bound once in the
    function, by a plain assignment before the call: a module without state, built and called
    in the same forward, is its functional loss with its options."""
    if not isinstance(func, cst.Name):
        return None
    fn = ctx.function(func)
    if fn is None:
        return None
    binds = bound_names(fn.body).get(func.value, [])
    if len(binds) != 1 or not isinstance(binds[0], cst.AssignTarget):
        return None
    a = ctx.parent(binds[0])
    if not isinstance(a, cst.Assign) or len(a.targets) != 1:
        return None
    if ctx.span(a)[0] >= ctx.span(func)[0] or ctx.function(a) is not fn:
        return None
    return _loss_ctor(ctx, a.value)


def _loss_view(ctx: FixContext, call: cst.Call) -> tuple[str, cst.Call]:
    """The loss ``call`` computes and the call as the functional form sees its arguments
    (a module's options appended as keywords), else ('', call) / (f, call)."""
    mod = loss_module(ctx, call.func)
    if mod is None:
        return _torch_call(ctx, call), call
    return mod[0], call.with_changes(args=[*call.args, *mod[1]])


def _values_of(ctx: FixContext, call: cst.Call) -> bool:
    """``call`` (``x.max(0)``, ``torch.min(x, dim=0)``) is read only for its values:
    ``.values`` or ``[0]``."""
    p = ctx.parent(call)
    if isinstance(p, cst.Attribute) and p.value is call:
        return p.attr.value == "values"
    if isinstance(p, cst.Subscript) and p.value is call and len(p.slice) == 1:
        i = p.slice[0].slice
        return (
            isinstance(i, cst.Index) and isinstance(i.value, cst.Integer) and i.value.value == "0"
        )
    return False


def _subscripts_in(node: cst.CSTNode) -> list[cst.Subscript]:
    out: list[cst.Subscript] = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            out.append(n)

    node.visit(V())
    return out


def _is_torch(ctx: FixContext, call: cst.Call) -> bool:
    head, _, _ = ctx.code(call.func).strip().rpartition(".")
    return head == ctx.torch()


def _dim0(call: cst.Call, skip: int = 0) -> bool:
    """``(0)`` / ``(dim=0)`` after ``skip`` positional arguments (the tensor of a function
    form), nothing else (no ``keepdim``)."""
    args = list(call.args)[skip:]
    if len(args) != 1 or args[0].star or any(a.keyword or a.star for a in call.args[:skip]):
        return False
    a = args[0]
    if a.keyword is not None and a.keyword.value != "dim":
        return False
    return isinstance(a.value, cst.Integer) and a.value.value == "0"


def _calls(fn: cst.FunctionDef) -> list[cst.Call]:
    out: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            out.append(n)

    fn.body.visit(V())
    return out


def _selection_calls(fn: cst.FunctionDef) -> list[cst.Call]:
    """The ``masked_select`` and ``index_select`` calls in ``fn``'s body."""
    return [
        c
        for c in _calls(fn)
        if isinstance(c.func, cst.Attribute)
        and c.func.attr.value in ("masked_select", "index_select")
    ]


def subscripts_of(fn: cst.FunctionDef) -> list[cst.Subscript]:
    """The subscripts in ``fn``'s body, in source order."""
    return _subscripts(fn)


def _subscripts(fn: cst.FunctionDef) -> list[cst.Subscript]:
    out: list[cst.Subscript] = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            out.append(n)

    fn.body.visit(V())
    return out


_Built = cst.CSTNode | cst.FlattenSentinel[Any] | cst.RemovalSentinel


def _built(new: _Built) -> Callable[[cst.CSTNode], _Built]:
    """A builder that gives ``new`` whatever the node became."""
    return lambda _updated: new


class _Apply(cst.CSTTransformer):
    def __init__(self, builders: Mapping[int, Callable[[cst.CSTNode], _Built]]) -> None:
        self.builders = builders

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> _Built:  # type: ignore[override]
        b = self.builders.get(id(original))
        return b(updated) if b is not None else updated


def masked_flow(
    ctx: FixContext,
    start: cst.Subscript | cst.Call,
    *,
    mask: cst.BaseExpression | None = None,
    stable: bool | None = None,
) -> Rewrite | NoFix:
    """The rewrite of the whole flow of the selection ``start`` (``x[m]``, or ``x[idx]`` with
    ``mask`` the boolean mask behind the indices ``idx``), or why there is none."""
    fn = ctx.function(start)
    if fn is None:
        return NoFix("the selection is not in a function")
    index = _selection_index(ctx, start)
    if index is None:
        return NoFix("the index is not a single mask")
    if mask is not None:
        m = mask
    elif isinstance(start, cst.Call):
        got = masked_select(ctx, start)
        if got is None:
            return NoFix("the selection is not a `masked_select` (or its mask is not known)")
        m = got.m
    elif len(start.slice) == 1:
        m = start.slice[0].slice.value  # type: ignore[attr-defined]
    else:
        norm = normalized_selection(ctx, start, lambda v: ctx.code(v).strip() == index)
        assert norm is not None
        m = norm.m
    if stable is None:
        # a name, or a pure expression of names (`~same`): none bound again from the
        # selection on, so that every read of it in the rewrite is the selections' mask
        line = ctx.span(start)[0]
        used = {n.value for n in name_nodes(m)} - {"self"}
        binds = bound_names(fn.body)
        stable = (
            (isinstance(m, cst.Name) or (side_effect(m) is None and bool(used)))
            and (not isinstance(m, (cst.Call, cst.Subscript)) or _bool_cast(m))
            and not any(ctx.span(b)[0] >= line for u in used for b in binds.get(u, []))
        )
    if not stable:
        return NoFix("the mask is an expression or is bound again after the selection")
    flow = _Flow(index=index, mask=m)
    w = _Walker(ctx, fn, flow)
    try:
        try:
            w.run(start)
        except _NeedRows:
            if not isinstance(m, cst.Name):
                raise _Stop(
                    "a row-wise step that combines a row's elements follows, and the mask is "
                    "an expression (read as rows, it is read at every selection)"
                ) from None
            elements: set[int] = set()
            for _ in range(8):
                flow = _Flow(index=index, mask=m, as_rows=True, element_leaves=set(elements))
                w = _Walker(ctx, fn, flow)
                try:
                    w.run(start)
                    break
                except _NeedElements as need:
                    elements.add(need.leaf)
            else:
                raise _Stop("the leaves read as rows and as elements do not settle")
    except (_Stop, _NeedRows, _NeedElements) as why:
        if isinstance(why, (_NeedRows, _NeedElements)):
            return NoFix("a row-wise step follows a selection not known to hold rows")
        return NoFix(f"{why}; {FLOWS_ON}" if "not only in" in str(why) else str(why))
    if not flow.terminals and not flow.counts:
        return NoFix("the selection is never reduced")
    if flow.flat and any(v[2] != "bincount" for v in flow.terminals.values()):
        return NoFix(
            "a step flattens the selection (`.view(-1)`) and a reduction other than "
            "`bincount` reads it: the full-size values would not line up with the mask"
        )
    if flow.first_dim and not flow.safe and not isinstance(m, cst.Name):
        return NoFix(
            "a reduction over the selection's rows follows steps that need finite leaves "
            "(`torch.where(m, x, 1)`), and the mask is an expression whose rank is not known"
        )
    members = [v[0] for v in flow.leaves.values()] + [v[0] for v in flow.terminals.values()]
    for node in [*members, *flow.counts]:
        if innermost_loop(ctx, node, fn) is not w.loop:
            return NoFix("the flow crosses a loop (its values are used in another iteration)")
    t = ctx.torch()
    mb_rows = template("__m__.unsqueeze(-1)", m=atom(m))
    # read as rows, every value not of rows has the mask's shape (a row's reduction, a stated
    # element leaf): the mask as it is
    ref = None if flow.as_rows else next((x for _, x, r in flow.leaves.values() if not r), None)
    shape = mask_shape(ctx, m, m, start)  # set by `build` below
    builders: dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = {}

    def leaf_builder(x: cst.BaseExpression, rows: bool) -> Callable[[cst.CSTNode], cst.CSTNode]:
        def build(_: cst.CSTNode) -> cst.CSTNode:
            if flow.as_rows:
                # rows of a mask over x's leading dims (or, for a cross-entropy's targets,
                # elements of x): `view` raises for a mask of another size (one of another
                # shape and the same size, the original `x[m]` rejected), and the shapes are
                # static under dynamo (no guard on data)
                dims = "__x__.shape[:-1] + (1,)" if rows else "__x__.shape"
                mv = template(f"__m__.view({dims})", m=atom(m), x=atom(x))
                return template(f"{t}.where(__m__, __x__, 1)", m=mv, x=x)
            if flow.safe:
                return atom(x) if rows else x
            return template(f"{t}.where(__m__, __x__, 1)", m=mb_rows if rows else shape.where, x=x)

        return build

    for key, (_, x, rows) in flow.leaves.items():
        builders[key] = leaf_builder(x, rows)

    def local_shape(e: cst.BaseExpression, at: cst.CSTNode) -> MaskShape:
        """The mask as it broadcasts against the flow value ``e`` (an original node): shaped
        against the full tensor of a leaf ``e`` is computed from, where the leaves differ in
        rank (``pos_bbox[idx]`` of ``[N, 4]`` and ``pos_centerness[idx]`` of ``[N]``: a mask
        shaped once against the first would broadcast the second to ``[N, N]``)."""
        if ctx.code(shape.where).strip() == ctx.code(m).strip() or ref is None:
            return shape
        todo: list[cst.CSTNode] = [e]
        found: list[cst.BaseExpression] = []
        while todo:
            node = todo.pop(0)
            if isinstance(node, cst.BaseExpression):
                leaf = w.direct_leaf(node)
                if leaf is not None:
                    _, x, rows = flow.leaves[leaf]
                    if rows or ctx.code(x).strip() == ctx.code(ref).strip():
                        return shape  # a leaf of the reference's own tensor
                    found.append(x)
                    continue
            todo.extend(node.children)
        return mask_shape(ctx, m, found[0], at) if found else shape

    def first_build(updated: cst.Call, op: str, recv: cst.BaseExpression) -> cst.CSTNode:
        """A reduction over the selection's first dimension, rank-agnostic: the mask's dims of
        the full-size value flattened into one and moved last, where the flattened mask
        broadcasts against it (a row mask or an element mask alike), then reduced over it."""
        mf = template("__m__.flatten()", m=atom(m))
        moved = template(
            "__r__.flatten(0, __m__.dim() - 1).movedim(0, -1)", r=atom(recv), m=atom(m)
        )
        fill = _EXTREMA.get(op, "0")
        red = "sum" if op == "mean" else op
        new: cst.BaseExpression = template(
            f"{t}.where(__f__, __v__, {fill}).{red}(-1)", f=mf, v=moved
        )
        if op == "mean":
            new = template("__k__ / __n__", k=new, n=template("__m__.sum()", m=atom(m)))
            new = new if isinstance(ctx.parent(updated), _PLAIN) else paren(new)
        return new.with_changes(lpar=[*updated.lpar, *new.lpar], rpar=[*new.rpar, *updated.rpar])

    def term_builder(
        op: str,
        rows: bool,
        dim0: bool,
        method: bool,
        plain: bool,
        original: cst.Call,
        first: bool = False,
    ) -> Callable[[cst.CSTNode], cst.CSTNode]:
        def build(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            if op.startswith("loss:"):
                return loss_build(updated, op.removeprefix("loss:"), plain, original, rows)
            if op == "ce":
                return ce_build(updated, original)
            if op == "bincount":
                return bincount_build(updated, method)
            if method:
                recv = updated.func.value  # type: ignore[attr-defined]
                orig = original.func.value  # type: ignore[attr-defined]
            else:
                recv = updated.args[0].value
                orig = original.args[0].value
            recv = recv.with_changes(lpar=[], rpar=[]) if not isinstance(recv, cst.Name) else recv
            here = local_shape(orig, original)
            mk = mb_rows if rows else here.where
            if op == "logsumexp":  # over the selected elements: the others weigh exp(-inf) = 0
                lse = template(
                    f'{t}.logsumexp({t}.where(__m__, __r__, -float("inf")).flatten(), 0)',
                    m=mk,
                    r=recv,
                )
                return lse.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            if first:
                return first_build(updated, op, recv)
            if op in _FILLED:  # the positions left out hold a value that changes nothing
                ext = template(f"{t}.where(__m__, __r__, {_FILLED[op]}).{op}()", m=mk, r=recv)
                return ext.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            dim = "0" if dim0 else ""
            kept = template(f"{t}.where(__m__, __r__, 0).sum({dim})", m=mk, r=recv)
            new: cst.BaseExpression = kept
            if op == "mean":
                n = shape.rows if rows else here.elements
                if rows and not dim0:  # every element of the stated rows
                    n = paren(template("__m__.sum() * __r__.shape[-1]", m=atom(m), r=recv))
                new = template("__k__ / __n__", k=kept, n=n)
                new = new if plain else paren(new)
            return new.with_changes(
                lpar=[*updated.lpar, *new.lpar], rpar=[*new.rpar, *updated.rpar]
            )

        return build

    def bincount_build(updated: cst.Call, method: bool) -> cst.CSTNode:
        got = bincount_args(updated, method=method)
        assert got is not None
        idx, w, k = got
        mf = template("__m__.flatten()", m=atom(shape.where))
        i = template(f"{t}.where(__m__, __i__.flatten(), 0)", m=mf, i=atom(idx))
        dev = template("__i__.device", i=atom(idx))
        if w is None:
            dt, wt = f"{t}.long", template("__m__.long()", m=mf)
        else:
            wa = atom(w)
            dt = f"({t}.float32 if {ctx.code(wa)}.dtype == {t}.float32 else {t}.float64)"
            wt = template(f"{t}.where(__m__, __w__.flatten(), 0).to({dt[1:-1]})", m=mf, w=wa)
        new = template(
            f"{t}.zeros(__k__, dtype={dt}, device=__d__).index_add_(0, __i__, __w__)",
            k=k,
            d=dev,
            i=i,
            w=wt,
        )
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def ce_build(updated: cst.Call, original: cst.Call) -> cst.CSTNode:
        """``F.cross_entropy(a, b)`` over every row: ``a`` (the full-size rows) flattened to
        ``[N, C]``, ``b``'s positions outside the mask set to ``ignore_index``, which the loss
        leaves out of its sum and of its mean's count (``weight``, ``label_smoothing`` too)."""
        pos = [a for a in updated.args if a.keyword is None]
        kws = [a for a in updated.args if a.keyword is not None]
        ignore: cst.BaseExpression = template("-100")
        for a in [*kws, *flow.modules.get(id(original), ("", []))[1]]:
            if a.keyword.value == "ignore_index":  # type: ignore[union-attr]
                ignore = a.value
        logits = template("__x__.flatten(0, -2)", x=atom(pos[0].value))
        mk = shape.where
        b = w.direct_leaf([a for a in original.args if a.keyword is None][1].value)
        if b is not None and b in flow.stated:
            mk = template("__m__.view(__y__.shape)", m=atom(m), y=atom(flow.leaves[b][1]))
        target = template(
            f"{t}.where(__m__, __y__, __i__).flatten()", m=mk, y=pos[1].value, i=ignore
        )
        args = [pos[0].with_changes(value=logits), pos[1].with_changes(value=target), *kws]
        return updated.with_changes(args=args)

    def loss_build(
        updated: cst.Call, op: str, plain: bool, original: cst.Call, rows: bool = False
    ) -> cst.CSTNode:
        none = cst.Arg(
            cst.SimpleString('"none"'),
            keyword=cst.Name("reduction"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        mod = flow.modules.get(id(original))
        if mod is not None:  # the module's forward: the functional loss with its options
            func = template(f"{t}.nn.functional.{mod[0]}")
            updated = updated.with_changes(func=func, args=[*updated.args, *mod[1]])
        args = [a for a in updated.args if a.keyword is None or a.keyword.value != "reduction"]
        args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in [*args, none]]
        per = updated.with_changes(args=args, lpar=[], rpar=[])
        here = local_shape(next(a.value for a in original.args if a.keyword is None), original)
        new: cst.BaseExpression = template(
            f"{t}.where(__m__, __l__, 0).sum()", m=mb_rows if rows else here.where, l=per
        )
        if op == "mean":
            n = here.elements
            if rows:  # the stated rows: their count times the row size of a named input
                named = next(a.value for a in args if isinstance(a.value, cst.Name))
                n = paren(template("__m__.sum() * __a__.shape[-1]", m=atom(m), a=named))
            new = template("__k__ / __n__", k=new, n=n)
            new = new if plain else paren(new)
        return new.with_changes(lpar=[*updated.lpar, *new.lpar], rpar=[*new.rpar, *updated.rpar])

    for key, (call, recv, op, rows) in flow.terminals.items():
        method = isinstance(call.func, cst.Attribute) and call.func.value is recv
        plain = isinstance(ctx.parent(call), _PLAIN)
        first = key in flow.first_dim
        builders[key] = term_builder(op, rows, rows and bool(call.args), method, plain, call, first)

    def count_builder(c: cst.BaseExpression) -> Callable[[cst.CSTNode], cst.CSTNode]:
        numel = isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute)

        def build(_: cst.CSTNode) -> cst.CSTNode:
            k = shape.elements if numel else shape.rows  # `n.numel()` / `len(n)`
            return k.with_changes(lpar=c.lpar, rpar=c.rpar)

        return build

    for c in flow.counts:
        builders[id(c)] = count_builder(c)

    def drop_view(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call) and isinstance(updated.func, cst.Attribute)
        return updated.func.value.with_changes(
            lpar=[*updated.lpar, *updated.func.value.lpar],
            rpar=[*updated.func.value.rpar, *updated.rpar],
        )

    for key in flow.identity:
        builders[key] = drop_view

    def one_hot_builder(original: cst.Call) -> Callable[[cst.CSTNode], cst.CSTNode]:
        leaf = w.direct_leaf(original.args[0].value)
        mk: cst.BaseExpression = m
        if leaf is not None:
            x = flow.leaves[leaf][1]
            if ctx.code(mask_shape(ctx, m, x, original).where).strip() != ctx.code(m).strip():
                mk = template("__m__.view(__x__.shape)", m=atom(m), x=atom(x))

        def build(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            first = updated.args[0]
            idx = template(f"{t}.where(__m__, __i__, 0)", m=mk, i=first.value)
            return updated.with_changes(args=[first.with_changes(value=idx), *updated.args[1:]])

        return build

    for key, oh in flow.one_hot.items():
        builders[key] = one_hot_builder(oh)
    # the top-most nodes to replace, each rebuilt with what it holds replaced
    targets = {
        k: n
        for k, n in (
            [(k, v[0]) for k, v in flow.leaves.items()]
            + [(k, v[0]) for k, v in flow.terminals.items()]
            + [(id(c), c) for c in flow.counts]
            + list(flow.identity.items())
            + list(flow.one_hot.items())
        )
    }
    tops = [n for n in targets.values() if not any(id(a) in targets for a in ctx.ancestors(n))]

    def build(got: MaskShape) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
        nonlocal shape
        shape = got
        return [(n, n.visit(_Apply(builders))) for n in tops]  # type: ignore[misc]

    changes = shaped_changes(ctx, m, ref if ref is not None else m, start, build)
    changes = _drop_self_binds(ctx, changes)  # type: ignore[arg-type,assignment]
    names = ", ".join(f"`{n}`" for n in flow.names) or "the selections"
    return Rewrite(
        title=f"keep the selections with `{ctx.code(m).strip()}` full-size ({names}); every "
        "reduction of them reads the mask",
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _bool_cast(m: cst.BaseExpression) -> bool:
    """``name.bool()`` (``self.name.bool()``): reading it again reads the same mask."""
    if not (
        isinstance(m, cst.Call)
        and not m.args
        and isinstance(m.func, cst.Attribute)
        and m.func.attr.value == "bool"
    ):
        return False
    e = m.func.value
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _drop_self_binds(
    ctx: FixContext, changes: list[tuple[cst.CSTNode, cst.CSTNode]]
) -> list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]]:
    """A line that re-bound names to their own selections (``pred = pred[valid]``, ``preds,
    target = preds[valid], target[valid]``) would become ``pred = pred``: it goes."""
    by_stmt: dict[int, list[int]] = {}
    for i, (n, _) in enumerate(changes):
        stmt = ctx.statement(n)
        if stmt is not None:
            by_stmt.setdefault(id(stmt), []).append(i)
    drop: dict[int, cst.CSTNode] = {}
    for ids in by_stmt.values():
        stmt = ctx.statement(changes[ids[0]][0])
        block = ctx.parent(stmt) if stmt is not None else None
        if (
            not isinstance(stmt, cst.SimpleStatementLine)
            or len(stmt.body) != 1
            or not isinstance(stmt.body[0], cst.Assign)
            or len(stmt.body[0].targets) != 1
            or not isinstance(block, cst.IndentedBlock)
            or len(block.body) < 2
        ):
            continue
        assign = stmt.body[0]
        new = assign.visit(_Apply({id(changes[i][0]): _built(changes[i][1]) for i in ids}))
        if _same_names(assign.targets[0].target, new.value):  # type: ignore[attr-defined, union-attr]
            for i in ids:
                drop[i] = stmt
    out: list[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]] = [
        c for i, c in enumerate(changes) if i not in drop
    ]
    for gone in {id(s): s for s in drop.values()}.values():
        out.append((gone, cst.RemovalSentinel.REMOVE))
    return out


def _same_names(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name) and isinstance(value, cst.Name):
        return target.value == value.value and not value.lpar
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        return len(target.elements) == len(value.elements) and all(
            _same_names(a.value, b.value)
            for a, b in zip(target.elements, value.elements, strict=True)
        )
    return False


def innermost_loop(
    ctx: FixContext, node: cst.CSTNode, fn: cst.FunctionDef
) -> cst.For | cst.While | None:
    for a in ctx.ancestors(node):
        if a is fn:
            return None
        if isinstance(a, (cst.For, cst.While)):
            return a
    return None


# ---------------------------------------------------------------------------- cross-entropy
_CE = frozenset({"cross_entropy", "nll_loss"})
_CE_KW = frozenset({"weight", "ignore_index", "label_smoothing", "reduction"})


def functional_pair_call(
    ctx: FixContext, node: cst.CSTNode, names: frozenset[str] | set[str], keywords: object
) -> tuple[cst.Call, str, list[cst.Arg], list[cst.Arg]] | None:
    """``(call, name, positional, keyword args)`` when ``node`` is an argument of
    ``F.<name>(a, b, k=...)`` (``torch.nn.functional`` too) with ``name`` in ``names``, two
    positional arguments and only keywords in ``keywords``; None otherwise."""
    arg = ctx.parent(node)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return None
    head, _, last = ctx.code(call.func).strip().rpartition(".")
    if last not in names or not (head == "F" or head.endswith("functional")):
        return None
    pos = [a for a in call.args if a.keyword is None]
    kws = [a for a in call.args if a.keyword is not None]
    if len(pos) != 2 or any(a.keyword.value not in keywords for a in kws):  # type: ignore[operator,union-attr]
        return None
    return call, last, pos, kws


def _module_pair_call(
    ctx: FixContext, node: cst.CSTNode
) -> tuple[cst.Call, str, list[cst.Arg], list[cst.Arg]] | None:
    """``(call, name, positional, the module's options)`` when ``node`` is an argument of
    ``self.ce(a, b)`` with ``self.ce`` a ``CrossEntropyLoss``/``NLLLoss`` module
    (:func:`loss_module`) whose options are all ``_CE_KW``."""
    arg = ctx.parent(node)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or any(a.star or a.keyword for a in call.args):
        return None
    mod = loss_module(ctx, call.func)
    if mod is None or mod[0] not in _CE or len(call.args) != 2:
        return None
    if any(a.keyword is None or a.keyword.value not in _CE_KW for a in mod[1]):
        return None
    return call, mod[0], list(call.args), mod[1]


def masked_cross_entropy(ctx: FixContext, sub: cst.Subscript) -> Rewrite | None:
    """``F.cross_entropy(logits[m], y[m], ...)`` (``nll_loss`` too; mean or sum) ->
    ``F.cross_entropy(logits.flatten(0, -2), torch.where(m, y, -100).flatten(), ...)``: the
    targets outside the mask become ``ignore_index``, which the loss leaves out of its sum and
    of its mean's count (as it does for the targets that already held it)."""
    got = functional_pair_call(ctx, sub, _CE, _CE_KW)
    ctor: list[cst.Arg] = []
    if got is None:
        got = _module_pair_call(ctx, sub)
        if got is None:
            return None
        ctor = got[3]
        got = (got[0], got[1], got[2], [])
    call, last, pos, kws = got
    ignore: cst.BaseExpression = template("-100")
    for a in [*kws, *ctor]:
        k = a.keyword.value  # type: ignore[union-attr]
        if k == "reduction" and not (
            isinstance(a.value, cst.SimpleString) and a.value.evaluated_value in ("mean", "sum")
        ):
            return None
        if k == "ignore_index":
            if not number_expr(a.value):
                return None
            ignore = a.value
        if k != "reduction" and side_effect(a.value) is not None:
            return None
    sels = []
    for a in pos:
        s = a.value
        if not isinstance(s, cst.Subscript) or _selection_index(ctx, s) is None:
            return None
        sels.append(s)
    if _selection_index(ctx, sels[0]) != _selection_index(ctx, sels[1]):
        return None
    m = sels[0].slice[0].slice.value  # type: ignore[attr-defined]
    if side_effect(m) is not None:
        return None
    t = ctx.torch()
    logits = template("__x__.flatten(0, -2)", x=atom(sels[0].value))
    target = template(f"{t}.where(__m__, __y__, __i__).flatten()", m=m, y=sels[1].value, i=ignore)
    args = [pos[0].with_changes(value=logits), pos[1].with_changes(value=target), *kws]
    return Rewrite(
        title="the loss over every position, with the targets outside the mask set to "
        "`ignore_index` (left out of the sum and the mean's count)",
        changes=[(call, call.with_changes(args=args))],
        imports=("torch",),
    )


# ---------------------------------------------------------------------------- sizes
_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "randn", "rand", "arange", "eye"})
_SIZED_METHODS = frozenset(
    {"new_zeros", "new_ones", "new_empty", "new_full", "view", "reshape", "expand", "repeat"}
)
SIZE_REMEDY = (
    ": as a size it makes the output's shape depend on the data, so no rewrite keeps the "
    "shape static. Pass the number in from the caller where the inputs know it (a batch's "
    "graph count, as PyG's `size=`/`num_graphs`; a padded length), or let torch trace it "
    "with `torch._dynamo.config.capture_scalar_outputs = True` (the config remedy `fix "
    "--verify` tries)"
)


# number-only parameters of selections and histograms: what keeps the shape static instead
_NUMBER_REMEDY = {
    "topk": (
        ": it is `topk`'s `k`, a Python int, so the selection's size is the data's. Where the "
        "selection is only reduced (a mean or sum over the kept entries), select them all, "
        "`x.topk(x.shape[dim], dim)` (a static bound, sorted), and mask the ranks `>= k` with "
        "`torch.arange(x.shape[dim]) < k_tensor` (the number kept a 0-d tensor): the same "
        "entries, ties aside; otherwise pass `k` in from the caller, or set "
        "`torch._dynamo.config.capture_scalar_outputs = True` (the config remedy `fix --verify` "
        "tries)"
    ),
    "histc": (
        ": `torch.histc`'s `bins`/`min`/`max` take Python numbers. With the range a 0-d tensor, "
        "count the bins with a static shape instead: `idx = ((x - lo) * bins / (hi - lo))"
        ".floor().clamp(0, bins - 1).long()`, `torch.zeros(bins).index_add_(0, idx, ((x >= lo) "
        "& (x <= hi)).float())` (values outside the range not counted, as `histc` does); or "
        "update the range outside `forward`"
    ),
}
_NUMBER_REMEDY["kthvalue"] = _NUMBER_REMEDY["topk"].replace("`topk`'s `k`", "`kthvalue`'s `k`")


def size_reason(ctx: FixContext, call: cst.Call) -> str | None:
    """The remedy text when ``call`` takes the value as a size (``torch.zeros(n, d)``,
    ``x.new_zeros(n)``, ``x.view(n, -1)``) or as a number-only parameter of a selection or a
    histogram (``x.topk(k)``, ``torch.histc(x, bins, min=lo)``), else None."""
    f = call.func
    if isinstance(f, cst.Attribute) and f.attr.value in _NUMBER_REMEDY:
        return _NUMBER_REMEDY[f.attr.value]
    if isinstance(f, cst.Attribute):
        if ctx.code(f.value).strip() == ctx.torch() and f.attr.value in _FACTORIES:
            return SIZE_REMEDY
        if f.attr.value in _SIZED_METHODS:
            return SIZE_REMEDY
    return None


# ---------------------------------------------------------------------------- nonzero ends
_EXTREME = {"max": "last", "amax": "last", "min": "first", "amin": "first"}


def nonzero_extreme(ctx: FixContext, call: cst.Call, m: cst.BaseExpression) -> Rewrite | None:
    """``m.nonzero().max()`` (``amax``; ``torch.nonzero(m)``) of a one-dimensional mask: the
    index of its last True -> ``m.long().cumsum(0).argmax()`` (the running count of True first
    reaches its maximum there); ``.min()``: the first True, ``m.long().argmax()``. The same
    0-d int64 index whenever ``m`` has a True (the original raised on an empty selection)."""
    p = ctx.parent(call)
    red = ctx.parent(p) if isinstance(p, cst.Attribute) and p.value is call else None
    if not isinstance(red, cst.Call) or red.func is not p or red.args:
        return None
    op = p.attr.value  # type: ignore[attr-defined, union-attr]
    if op not in _EXTREME or side_effect(m) is not None:
        return None
    as_long = ".long()" if isinstance(m, cst.Comparison) else ".bool().long()"
    which = _EXTREME[op]
    text = f"__m__{as_long}.cumsum(0).argmax()" if which == "last" else f"__m__{as_long}.argmax()"
    new = template(text, m=atom(m)).with_changes(lpar=red.lpar, rpar=red.rpar)
    return Rewrite(
        title=f"the index of the {which} True with `argmax`, without `nonzero()`",
        changes=[(red, new)],
    )
