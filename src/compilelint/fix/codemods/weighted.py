"""Items dropped by a mask from index arrays and their weights, then only scatter-added.

``keep = edge_weight > t``; ``edge_index = edge_index[:, keep]``; ``edge_weight =
edge_weight[keep]`` (one mask selecting the same items, the last axis, from index arrays and
one 1-d weight), where what follows uses the selected items only as

- indices: ``src, dst = edge_index`` / ``edge_index[0]``, read as a gather (``h[src]``) or as the
  index of ``t.index_add_(0, dst, v)``;
- gathered values (``h[src]``, elementwise arithmetic of them with values that are not items),
  only multiplied by the weight (``* edge_weight.unsqueeze(-1)``, ``[:, None]``,
  ``.view(-1, 1)``) before anything else;
- weighted values (such products, scaled by values that are not items) and the weight itself,
  only as the added values of ``index_add_`` / ``index_add`` over dim 0; ``.size(k)`` of a
  weighted value for a dim other than the items'.

Then every dropped item adds ``0 * value`` to a sum: the selections become
``edge_weight = torch.where(keep, edge_weight, 0)`` and the index arrays are kept whole, so the
shapes no longer depend on the data. Unsafe: a gathered value that is infinite or NaN at a
dropped item gives NaN where the original added nothing, and every item's message is computed.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import bound_names, names_in, template
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

# kinds of expressions over the selected items
IDX = "idx"  # an index array (a row of the selected index arrays)
ARR = "arr"  # a selected index array itself
G = "gathered"  # values gathered per item, not weighted
W = "weight"  # the selected weight (1-d)
WC = "column"  # the weight as a column (w.unsqueeze(-1), w[:, None], w.view(-1, 1))
WX = "weighted"  # per-item values times the weight
WXC = "weighted2"  # the same, at least 2-d (a product with the column)


class _Reject(Exception):
    pass


def _code(e: cst.CSTNode) -> str:
    return "".join(cst.Module([]).code_for_node(e).split())


def _full(e: cst.SubscriptElement) -> bool:
    s = e.slice
    return isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None


def last_axis_mask(sub: cst.Subscript) -> tuple[cst.BaseExpression, bool] | None:
    """(the mask, whether it is the only index) of ``x[m]`` / ``x[:, m]`` (full slices, then
    the mask last)."""
    els = list(sub.slice)
    if not els or not isinstance(els[-1].slice, cst.Index) or not all(_full(e) for e in els[:-1]):
        return None
    return els[-1].slice.value, len(els) == 1


def _selection_stmt(
    st: cst.CSTNode, mask: str
) -> tuple[cst.SimpleStatementLine, str, cst.BaseExpression, bool] | None:
    """(the line, the target, the selected value, 1-d) of ``a = b[..., mask]``."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    a = st.body[0]
    if not (
        isinstance(a, cst.Assign)
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
        and isinstance(a.value, cst.Subscript)
    ):
        return None
    got = last_axis_mask(a.value)
    if got is None or _code(got[0]) != mask:
        return None
    return st, a.targets[0].target.value, a.value.value, got[1]


class _Kinds:
    def __init__(self, kinds: dict[str, str]) -> None:
        self.kinds = kinds

    def of(self, e: cst.CSTNode) -> str:
        """The kind of ``e`` ("" for a value that is not per item); raises _Reject when a
        selected value is used any other way."""
        if isinstance(e, cst.Name):
            return self.kinds.get(e.value, "")
        if isinstance(e, cst.Subscript):
            got = self._subscript(e)
            if got is not None:
                return got
        if isinstance(e, cst.Call):
            got = self._call(e)
            if got is not None:
                return got
        if isinstance(e, cst.BinaryOperation):
            return self._binary(e)
        if isinstance(e, cst.Attribute):
            if self.of(e.value):
                raise _Reject
            return ""
        self._plain(e)
        return ""

    def _plain(self, node: cst.CSTNode) -> None:
        """Every expression under ``node`` is not per item."""
        for ch in node.children:
            if isinstance(ch, cst.BaseExpression):
                if self.of(ch):
                    raise _Reject
            elif isinstance(ch, cst.Arg):
                if self.of(ch.value):
                    raise _Reject
            elif isinstance(ch, (cst.Lambda, cst.BaseCompoundStatement)):
                raise _Reject
            else:
                self._plain(ch)

    def _subscript(self, e: cst.Subscript) -> str | None:
        els = list(e.slice)
        if len(els) == 1 and isinstance(els[0].slice, cst.Index):
            idx = els[0].slice.value
            base = self.of(e.value)
            if base == ARR and isinstance(idx, cst.Integer):
                return IDX
            if not base and self.of(idx) == IDX:
                return G
            return None
        if (
            len(els) == 2
            and _full(els[0])
            and isinstance(els[1].slice, cst.Index)
            and _code(els[1].slice.value) == "None"
            and self.of(e.value) == W
        ):
            return WC
        return None

    def _call(self, e: cst.Call) -> str | None:
        f = e.func
        if not isinstance(f, cst.Attribute):
            return None
        meth = f.attr.value
        args = ",".join(_code(a.value) for a in e.args)
        if meth in ("unsqueeze", "view", "reshape") and self.of(f.value) == W:
            ok = {"unsqueeze": ("-1", "1"), "view": ("-1,1",), "reshape": ("-1,1",)}[meth]
            if args in ok:
                return WC
            raise _Reject
        if meth == "size" and len(e.args) == 1 and not e.args[0].keyword:
            k = self.of(f.value)
            if k in (G, WX, WXC):
                d = args
                if (d.isdigit() and int(d) >= 1) or (d == "-1" and k == WXC):
                    return ""
                raise _Reject
            return None
        if meth in ("index_add_", "index_add"):
            if (
                len(e.args) == 3
                and all(not a.keyword and not a.star for a in e.args)
                and _code(e.args[0].value) == "0"
                and self.of(e.args[1].value) == IDX
                and self.of(e.args[2].value) in (W, WX, WXC)
                and not self.of(f.value)
            ):
                return ""
            return None
        return None

    def _binary(self, e: cst.BinaryOperation) -> str:
        kl, kr = self.of(e.left), self.of(e.right)
        ks = {kl, kr}
        if not kl and not kr:
            return ""
        op = e.operator
        if isinstance(op, cst.Multiply):
            if ks & {G, WX, WXC} and ks & {W, WC} and len(ks) == 2:
                return WXC if ks & {WC, WXC} else WX
            if ks <= {"", G}:
                return G
            if ks in ({"", WX}, {"", WXC}):
                return kl or kr
            raise _Reject
        if isinstance(op, (cst.Add, cst.Subtract, cst.Divide, cst.Power)):
            if ks <= {"", G}:
                return G
            if isinstance(op, cst.Divide) and kl in (WX, WXC) and not kr:
                return kl
        raise _Reject


def weighted_scatter(ctx: FixContext, sub: cst.Subscript) -> Rewrite | None:
    """The rewrite of the selections of :mod:`this module's <weighted>` pattern that ``sub``
    (one of them) belongs to, or None."""
    got = last_axis_mask(sub)
    if got is None or not isinstance(got[0], cst.Name):
        return None
    mask = got[0].value
    line = ctx.statement(sub)
    block = ctx.parent(line) if line is not None else None
    if not isinstance(block, cst.IndentedBlock) or ctx.function(sub) is None:
        return None
    stmts = list(block.body)
    i = stmts.index(line)  # type: ignore[arg-type]
    while i > 0 and _selection_stmt(stmts[i - 1], mask) is not None:
        i -= 1
    group = []
    while i < len(stmts):
        s = _selection_stmt(stmts[i], mask)
        if s is None:
            break
        group.append(s)
        i += 1
    weights = [g for g in group if g[3]]
    arrays = [g for g in group if not g[3]]
    if len(weights) != 1 or not arrays:
        return None
    targets = [g[1] for g in group]
    if len(set(targets)) != len(targets) or mask in targets:
        return None
    if any(_reads(st, {mask}) for st in stmts[i:]):
        return None  # another item-sized value selected by the mask would keep its selection
    kinds = _Kinds({weights[0][1]: W, **{g[1]: ARR for g in arrays}})
    try:
        for st in stmts[i:]:
            _statement(kinds, st)
    except _Reject:
        return None
    th = ctx.torch()
    changes: list[tuple[cst.CSTNode, object]] = []
    for line_, name, value, one_d in group:
        assign = line_.body[0]
        assert isinstance(assign, cst.Assign)
        if one_d:
            new = template(f"{th}.where({mask}, __v__, 0)", v=value)
            changes.append((assign.value, new))
        elif isinstance(value, cst.Name) and value.value == name:
            changes.append((line_, cst.RemoveFromParent()))
        else:
            changes.append((assign.value, value))
    return Rewrite(
        title="keep every item and zero the dropped items' weights "
        "(`torch.where(mask, w, 0)`): they are only weighted and scatter-added, so they add "
        "nothing",
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _statement(kinds: _Kinds, st: cst.BaseStatement) -> None:
    names = set(kinds.kinds)
    if isinstance(st, cst.SimpleStatementLine):
        for s in st.body:
            if isinstance(s, cst.Assign) and len(s.targets) == 1:
                t = s.targets[0].target
                k = kinds.of(s.value)
                if isinstance(t, cst.Name):
                    if k:
                        kinds.kinds[t.value] = k
                    else:
                        kinds.kinds.pop(t.value, None)
                    continue
                if (
                    isinstance(t, (cst.Tuple, cst.List))
                    and k == ARR
                    and all(isinstance(el.value, cst.Name) for el in t.elements)
                ):
                    for el in t.elements:
                        kinds.kinds[el.value.value] = IDX  # type: ignore[attr-defined]
                    continue
                if k:
                    raise _Reject
                kinds._plain(t)
                continue
            if isinstance(s, (cst.Return, cst.Expr)):
                if s.value is not None and kinds.of(s.value):
                    raise _Reject
                continue
            if _reads(s, names):
                raise _Reject
        return
    if _reads(st, names) or set(bound_names(st)) & names:
        raise _Reject


def _reads(node: cst.CSTNode, names: set[str]) -> bool:
    return bool(names_in(node) & names)
