"""CL114: ordering tensors by a key computed from their values becomes ``torch.argsort``.

- ``sorted(xs, key=lambda t: k(t), reverse=r)``
      -> ``list(torch.stack(list(xs))[torch.argsort(torch.stack([k(t) for t in xs]),
         stable=True, descending=r)].unbind(0))``
- ``max(xs, key=f)`` / ``min(xs, key=f)``
      -> ``torch.stack(list(xs)).index_select(0, torch.argmax(torch.stack([f(t) for t in
         xs])).view(1)).squeeze(0)`` (``argmin``)

The keys are stacked into one tensor and ordered in the graph; a stable sort keeps the order of
equal keys as ``sorted`` does, and ``argmax``/``argmin`` return the first extreme as ``max``/
``min`` do. The elements must have one shape (they are stacked): verification runs the model,
and a model whose elements differ fails there and gets no fix. Gradients reach the elements as
before (the keys are not differentiated in either form).
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import (
    Codemod,
    atom,
    bound_names,
    name_nodes,
    side_effect,
    template,
)
from compilelint.fix.codemods.selection import one_element_index
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr


class SortByTensorKey(Codemod):
    CODE = "CL114"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        call = next(
            (c for c in calls if isinstance(c.func, cst.Name) and c.func.value in _FUNCS),
            None,
        )
        inplace: cst.Expr | None = None
        if call is None:
            call = next(
                (
                    c
                    for c in calls
                    if isinstance(c.func, cst.Attribute)
                    and c.func.attr.value == "sort"
                    and all(a.keyword is not None for a in c.args)
                ),
                None,
            )
            if call is None:
                return NoFix("the ordering call was not found in the file")
            stmt = ctx.parent(call)
            func = call.func
            if (
                not isinstance(stmt, cst.Expr)
                or not isinstance(func, cst.Attribute)
                or not isinstance(func.value, (cst.Name, cst.Attribute))
            ):
                return NoFix("`list.sort(key=...)` is not a statement of its own")
            # `xs.sort(key=k)` -> `xs[:] = <sorted(xs, key=k)>`: the same list, reordered
            inplace = stmt
            how = "sorted"
            pos = [cst.Arg(func.value)]
        else:
            how = cast(cst.Name, call.func).value
            pos = [a for a in call.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(pos) != 1 or pos[0].star or set(kw) - {"key", "reverse"} or "key" not in kw:
            return NoFix(f"`{how}` is called with more than an iterable, `key=` and `reverse=`")
        if how != "sorted" and "reverse" in kw:
            return NoFix(f"`{how}` does not take `reverse=`")
        xs = pos[0].value
        eff = side_effect(xs)
        if eff is not None:
            return NoFix(
                f"`{ctx.code(eff).strip()}` has a side effect (the iterable is read twice)"
            )
        if _is_range(xs) and inplace is None:
            return self._indices(ctx, call, how, xs, kw)  # type: ignore[arg-type]
        if _is_zip(xs) and inplace is None:
            if how != "sorted":
                return NoFix(f"`{how}` over `zip(...)` yields tuples: not rewritten")
            return self._zipped(ctx, call, xs, kw)  # type: ignore[arg-type]
        keys = self._keys(ctx, kw["key"], xs)
        if isinstance(keys, NoFix):
            return keys
        arity = tuple_elements(ctx, call, xs)
        if isinstance(arity, NoFix):
            return arity
        if not arity and _item_key(kw["key"]) is not None and _from_outside(ctx, call, xs):
            return NoFix(
                f"the key reads a field (`{ctx.code(kw['key']).strip()}`) of elements that come "
                f"from outside the function (`{ctx.code(xs).strip()}`): tuples cannot be stacked "
                "into one tensor; stack each field and order them with `torch.argsort` by hand"
            )
        if arity:
            return self._tuples(ctx, call, how, xs, keys, kw.get("reverse"), inplace)
        th = ctx.torch()
        stacked = template(f"{th}.stack(list(__xs__))", xs=xs)
        if how == "sorted":
            rev = kw.get("reverse")
            desc = "" if rev is None else ", descending=__r__"
            order = template(
                f"{th}.argsort({th}.stack(__k__), stable=True{desc})",
                k=keys,
                **({"r": rev} if rev is not None else {}),
            )
            new = template("list(__s__[__o__].unbind(0))", s=stacked, o=order)
            title = "order with `torch.argsort` on the stacked keys (stable, as `sorted`)"
        else:
            fn = "argmax" if how == "max" else "argmin"
            # a 0-d index tensor would be read as a Python int (a break): select with a 1-d one
            new = template(
                f"__s__.index_select(0, {th}.{fn}({th}.stack(__k__)).view(1)).squeeze(0)",
                s=stacked,
                k=keys,
            )
            title = f"pick with `torch.{fn}` on the stacked keys (the first, as `{how}`)"
        if inplace is not None:
            target = cst.Subscript(
                value=xs, slice=[cst.SubscriptElement(cst.Slice(lower=None, upper=None))]
            )
            return Rewrite(
                title=title.replace("`sorted`", "`list.sort`") + "; the list is refilled in place",
                changes=[(inplace, cst.Assign(targets=[cst.AssignTarget(target)], value=new))],
                imports=("torch",),
            )
        return Rewrite(
            title=title,
            changes=[(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))],
            imports=("torch",),
        )

    def _indices(
        self,
        ctx: FixContext,
        call: cst.Call,
        how: str,
        xs: cst.Call,
        kw: dict[str, cst.BaseExpression],
    ) -> Rewrite | NoFix:
        """Python indices ordered by tensor elements: ``sorted(range(len(t)), key=lambda i:
        f(t[i]), reverse=r)`` -> ``torch.argsort(f(t), stable=True, descending=r)``,
        ``max(range(n), key=t.__getitem__)`` -> ``torch.argmax(t)`` (``min``: ``argmin``).
        The items are indices, never stacked (stacking ints is the ``TypeError`` of the
        element form): they become an index tensor, whose items (0-d tensors) index tensors as
        the ints did. The keys are the key's body with every ``t[i]`` read as ``t`` when the
        index appears only there (an elementwise key), else stacked per index."""
        th = ctx.torch()
        keys = _index_keys(ctx, kw["key"], xs)
        if isinstance(keys, NoFix):
            return keys
        if how == "sorted":
            rev = kw.get("reverse")
            desc = "" if rev is None else ", descending=__r__"
            new = template(
                f"{th}.argsort(__k__, stable=True{desc})",
                k=keys,
                **({"r": rev} if rev is not None else {}),
            )
            title = (
                "order the indices with `torch.argsort` of the keys (stable, as `sorted`): an "
                "index tensor, its items index tensors as the ints did"
            )
        else:
            fn = "argmax" if how == "max" else "argmin"
            new = template(f"{th}.{fn}(__k__)", k=keys)
            title = (
                f"pick the index with `torch.{fn}` of the keys (the first, as `{how}`): a 0-d "
                "index tensor, it indexes tensors as the int did"
            )
        reads = _item_reads(ctx, call, how)
        if isinstance(reads, NoFix):
            return reads
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = [
            (call, new.with_changes(lpar=call.lpar, rpar=call.rpar))
        ]
        # `x[i]` with a 0-d index tensor reads it as a Python int (a break): index with a
        # one-element tensor and drop that dim
        changes.extend(reads)
        if reads:
            title += "; each item indexes as a one-element index (`x[i.view(1)].squeeze(0)`)"
        return Rewrite(title=title, changes=changes, imports=("torch",))

    def _zipped(
        self, ctx: FixContext, call: cst.Call, xs: cst.Call, kw: dict[str, cst.BaseExpression]
    ) -> Rewrite | NoFix:
        """``sorted(zip(a, b), key=lambda p: p[0], reverse=r)`` -> ``order =
        torch.argsort(a, stable=True, descending=r)`` before the statement and
        ``list(zip(a[order], b[order]))``: the same tuples of the same tensors (rows of each
        sequence), in the same order (a stable sort keeps equal keys in their order, with
        ``reverse=True`` too, as ``sorted`` does)."""
        line = ctx.statement(call)
        if not isinstance(line, cst.SimpleStatementLine) or not isinstance(
            ctx.parent(line), cst.IndentedBlock
        ):
            return NoFix("the `sorted` call is not in a statement of a function body")
        for a in ctx.ancestors(call):
            if a is line:
                break
            if isinstance(
                a, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
            ):
                return NoFix("the `sorted` call is inside a lambda or a comprehension")
        seqs = [a.value for a in xs.args]
        th = ctx.torch()

        def stacked(e: cst.BaseExpression) -> cst.BaseExpression:
            # a tensor is indexed as it is; a sequence of tensors is stacked first
            return e if ctx.is_tensor(e) else template(f"{th}.stack(list(__e__))", e=e)

        key = kw["key"]
        keys: cst.BaseExpression
        j = _item_key(key)
        if j is not None:
            if j >= len(seqs):
                return NoFix("the key reads past the zipped sequences")
            keys = stacked(seqs[j])
        else:
            comp = self._keys(ctx, key, xs)
            if isinstance(comp, NoFix):
                return comp
            keys = template(f"{th}.stack(__k__)", k=comp)
        order = ctx.fresh_name("order")
        rev = kw.get("reverse")
        desc = "" if rev is None else ", descending=__r__"
        argsort = template(
            f"{th}.argsort(__k__, stable=True{desc})", k=keys, **({"r": rev} if rev else {})
        )
        first = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(order))], value=argsort)],
            leading_lines=line.leading_lines,
        )
        picked = [
            cst.Arg(
                cst.Subscript(
                    value=atom(stacked(e)), slice=[cst.SubscriptElement(cst.Index(cst.Name(order)))]
                )
            )
            for e in seqs
        ]
        new = template("list(__z__)", z=xs.with_changes(args=picked))
        fixed = line.deep_replace(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))
        assert isinstance(fixed, cst.SimpleStatementLine)
        return Rewrite(
            title="order the zipped sequences with `torch.argsort` of the key (stable, as "
            "`sorted`) and index each of them",
            changes=[(line, cst.FlattenSentinel([first, fixed.with_changes(leading_lines=[])]))],
            imports=("torch",),
        )

    def _tuples(
        self,
        ctx: FixContext,
        call: cst.Call,
        how: str,
        xs: cst.BaseExpression,
        keys: cst.ListComp,
        rev: cst.BaseExpression | None,
        inplace: cst.Expr | None,
    ) -> Rewrite | NoFix:
        """Elements that are tuples of tensors (``(score, tokens)`` hypotheses of a beam
        search): the keys are stacked and ordered as for tensors, and each field is stacked and
        reordered on its own, ``zip`` making the tuples again:
        ``order = torch.argsort(torch.stack([k(h) for h in xs]), stable=True)`` before the
        statement, ``list(zip(*[torch.stack(list(f))[order].unbind(0) for f in zip(*xs)]))`` in
        place of ``sorted(xs, key=k)`` (``xs[:] = ...`` for ``xs.sort(key=k)``); ``max``/``min``:
        ``tuple(torch.stack(list(f)).index_select(0, i).squeeze(0) for f in zip(*xs))`` with
        ``i`` the ``argmax``/``argmin`` as a 1-element index. Every field must hold tensors of
        one shape (a Python number in a field cannot be stacked)."""
        line = ctx.statement(call)
        if not isinstance(line, cst.SimpleStatementLine) or not isinstance(
            ctx.parent(line), cst.IndentedBlock
        ):
            return NoFix(f"the `{how}` call is not in a statement of a function body")
        for a in ctx.ancestors(call):
            if a is line:
                break
            if isinstance(
                a, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
            ):
                return NoFix(f"the `{how}` call is inside a lambda or a comprehension")
        th = ctx.torch()
        order = ctx.fresh_name("order" if how == "sorted" else "pick")
        field = ctx.fresh_name("field")
        if how == "sorted":
            desc = "" if rev is None else ", descending=__r__"
            value = template(
                f"{th}.argsort({th}.stack(__k__), stable=True{desc})",
                k=keys,
                **({"r": rev} if rev is not None else {}),
            )
            new = template(
                f"list(zip(*[{th}.stack(list({field}))[{order}].unbind(0) "
                f"for {field} in zip(*__xs__)]))",
                xs=xs,
            )
            title = (
                "order the tuples with `torch.argsort` on the stacked keys (stable, as "
                "`sorted`), each field stacked and reordered"
            )
        else:
            fn = "argmax" if how == "max" else "argmin"
            value = template(f"{th}.{fn}({th}.stack(__k__)).view(1)", k=keys)
            new = template(
                f"tuple({th}.stack(list({field})).index_select(0, {order}).squeeze(0) "
                f"for {field} in zip(*__xs__))",
                xs=xs,
            )
            title = (
                f"pick the tuple with `torch.{fn}` on the stacked keys (the first, as "
                f"`{how}`), each field stacked and indexed"
            )
        first = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(order))], value=value)],
            leading_lines=line.leading_lines,
        )
        if inplace is not None:
            target = cst.Subscript(
                value=xs, slice=[cst.SubscriptElement(cst.Slice(lower=None, upper=None))]
            )
            fixed: cst.CSTNode = line.deep_replace(
                inplace, cst.Assign(targets=[cst.AssignTarget(target)], value=new)
            )
            title = title.replace("`sorted`", "`list.sort`") + "; the list is refilled in place"
        else:
            fixed = line.deep_replace(call, new.with_changes(lpar=call.lpar, rpar=call.rpar))
        assert isinstance(fixed, cst.SimpleStatementLine)
        return Rewrite(
            title=title,
            changes=[(line, cst.FlattenSentinel([first, fixed.with_changes(leading_lines=[])]))],
            imports=("torch",),
        )

    def _keys(
        self, ctx: FixContext, key: cst.BaseExpression, xs: cst.BaseExpression
    ) -> cst.ListComp | NoFix:
        """``[k(t) for t in xs]`` for the ``key=`` function."""
        if isinstance(key, cst.Lambda):
            param = _only_param(key)
            if param is None:
                return NoFix("the key is a lambda of more than one parameter")
            name = param
            body = key.body
        elif isinstance(key, (cst.Name, cst.Attribute)):
            name = cst.Name(ctx.fresh_name("item"))
            body = cst.Call(func=key, args=[cst.Arg(name)])
        else:
            return NoFix("the key is not a lambda or a function name")
        eff = side_effect(body)
        if eff is not None:
            return NoFix(f"the key has a side effect (`{ctx.code(eff).strip()}`)")
        return cst.ListComp(
            elt=body,
            for_in=cst.CompFor(target=name, iter=atom(xs)),
        )


_FUNCS = frozenset({"sorted", "max", "min"})


def _is_zip(e: cst.BaseExpression) -> bool:
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Name)
        and e.func.value == "zip"
        and bool(e.args)
        and all(a.keyword is None and not a.star for a in e.args)
    )


def _item_key(key: cst.BaseExpression) -> int | None:
    """``j`` of ``key=lambda p: p[j]`` (or ``operator.itemgetter(j)``), else None."""
    if isinstance(key, cst.Lambda) and len(key.params.params) == 1:
        body, name = key.body, key.params.params[0].name.value
        if (
            isinstance(body, cst.Subscript)
            and isinstance(body.value, cst.Name)
            and body.value.value == name
            and len(body.slice) == 1
            and isinstance(body.slice[0].slice, cst.Index)
            and isinstance(body.slice[0].slice.value, cst.Integer)
        ):
            return int(body.slice[0].slice.value.value)
    if (
        isinstance(key, cst.Call)
        and isinstance(key.func, (cst.Name, cst.Attribute))
        and (key.func.attr if isinstance(key.func, cst.Attribute) else key.func).value
        == "itemgetter"
        and len(key.args) == 1
        and isinstance(key.args[0].value, cst.Integer)
    ):
        return int(key.args[0].value.value)  # type: ignore[union-attr]
    return None


# values that are never tensors: a field holding one cannot be stacked
_PY_CALLS = frozenset({"int", "float", "len", "str", "bool", "round"})


def _never_tensor(e: cst.BaseExpression) -> bool:
    if isinstance(e, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString)):
        return True
    if isinstance(e, cst.UnaryOperation):
        return _never_tensor(e.expression)
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Name) and f.value in _PY_CALLS:
            return True
        if isinstance(f, cst.Attribute) and f.attr.value in ("item", "tolist"):
            return True
    return isinstance(e, cst.Name) and e.value in ("None", "True", "False")


def tuple_elements(ctx: FixContext, call: cst.Call, xs: cst.BaseExpression) -> int | NoFix:
    """How many fields the elements of the list ``xs`` have when the function builds it of
    tuples (``xs.append((score, toks))``, ``xs = [(a, b), ...]``, ``xs += [(a, b)]``, a
    comprehension of tuples); 0 when nothing says so; why not when a field holds a Python
    value (it cannot be stacked)."""
    if not isinstance(xs, cst.Name):
        return 0
    fn = ctx.function(call)
    if fn is None:
        return 0
    name = xs.value
    tuples: list[cst.Tuple] = []

    def of_list(e: cst.BaseExpression) -> None:
        if isinstance(e, cst.List):
            tuples.extend(el.value for el in e.elements if isinstance(el.value, cst.Tuple))
        elif isinstance(e, cst.ListComp) and isinstance(e.elt, cst.Tuple):
            tuples.append(e.elt)

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if (
                isinstance(f, cst.Attribute)
                and isinstance(f.value, cst.Name)
                and f.value.value == name
                and f.attr.value in ("append", "insert")
                and n.args
                and isinstance(n.args[-1].value, cst.Tuple)
            ):
                tuples.append(n.args[-1].value)  # type: ignore[arg-type]

        def visit_Assign(self, n: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets):
                of_list(n.value)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if isinstance(n.target, cst.Name) and n.target.value == name:
                of_list(n.value)

    fn.body.visit(V())
    if not tuples:
        return 0
    sizes = {len(t.elements) for t in tuples}
    if len(sizes) != 1 or any(
        isinstance(el, cst.StarredElement) for t in tuples for el in t.elements
    ):
        return NoFix(f"the tuples of `{name}` do not all have the same fields")
    for t in tuples:
        for j, el in enumerate(t.elements):
            if _never_tensor(el.value):
                return NoFix(
                    f"field {j} of the tuples of `{name}` holds a Python value "
                    f"(`{ctx.code(el.value).strip()}`): it cannot be stacked into a tensor"
                )
    return sizes.pop()


def _from_outside(ctx: FixContext, call: cst.Call, xs: cst.BaseExpression) -> bool:
    """``xs`` is a parameter of the function (not rebound in it) or an attribute of ``self``:
    nothing here says what its elements are."""
    if isinstance(xs, cst.Attribute):
        return self_attr(xs) is not None
    if not isinstance(xs, cst.Name):
        return False
    fn = ctx.function(call)
    if fn is None:
        return False
    params = {p.name.value for p in fn.params.params}
    return xs.value in params and xs.value not in bound_names(fn.body)


def _is_range(e: cst.BaseExpression) -> bool:
    """``range(n)`` / ``range(len(t))`` / ``range(t.shape[0])``: one positional argument."""
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Name)
        and e.func.value == "range"
        and len(e.args) == 1
        and e.args[0].keyword is None
        and not e.args[0].star
    )


def _index_keys(
    ctx: FixContext, key: cst.BaseExpression, xs: cst.Call
) -> cst.BaseExpression | NoFix:
    """The keys of the indices ``xs`` as one tensor: ``t`` for ``key=t.__getitem__``; for
    ``key=lambda i: f(t[i])`` the body with each ``t[i]`` read as ``t`` (the index appears
    only as the index of names); else ``torch.stack([f(t[i]) for i in xs])``."""
    th = ctx.torch()
    if isinstance(key, cst.Attribute) and key.attr.value == "__getitem__":
        if side_effect(key.value) is not None:
            return NoFix("the key's tensor has a side effect")
        return key.value
    if not isinstance(key, cst.Lambda):
        return NoFix("the key is not a lambda or `t.__getitem__`")
    param = _only_param(key)
    if param is None:
        return NoFix("the key is a lambda of more than one parameter")
    name = param.value
    body = key.body
    eff = side_effect(body)
    if eff is not None:
        return NoFix(f"the key has a side effect (`{ctx.code(eff).strip()}`)")

    reads: list[cst.Subscript] = []
    other = False

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> bool:
            if (
                len(n.slice) == 1
                and isinstance(n.slice[0].slice, cst.Index)
                and isinstance(n.slice[0].slice.value, cst.Name)
                and n.slice[0].slice.value.value == name
                and isinstance(n.value, (cst.Name, cst.Attribute))
            ):
                reads.append(n)
                return False
            return True

        def visit_Name(self, n: cst.Name) -> None:
            nonlocal other
            if n.value == name:
                other = True

    body.visit(V())
    if reads and not other:
        ids = {id(r) for r in reads}

        class Whole(cst.CSTTransformer):
            def leave_Subscript(self, o: cst.Subscript, u: cst.Subscript) -> cst.BaseExpression:
                return u.value if id(o) in ids else u

        whole = body.visit(Whole())
        return whole.with_changes(lpar=[], rpar=[])  # type: ignore[union-attr]
    comp = cst.ListComp(elt=body, for_in=cst.CompFor(target=cst.Name(name), iter=xs))
    return template(f"{th}.stack(__k__)", k=comp)


def _in_index(ctx: FixContext, e: cst.CSTNode) -> bool:
    """``e`` (a 1-d index tensor) is an index of a subscript read (``x[e]``, ``x[e, None]``)."""
    idx = ctx.parent(e)
    el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    return isinstance(sub, cst.Subscript) and not isinstance(
        ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del)
    )


def _item_reads(
    ctx: FixContext, call: cst.Call, how: str
) -> list[tuple[cst.Subscript, cst.BaseExpression]] | NoFix:
    """The reads that take one index out of the result of the index ordering ``call`` and
    index a tensor with it (``x[i]``, ``i`` a loop variable over the order, or the picked
    index of ``max``/``min``): those become one-element indices. Other reads of the whole
    order (``x[order[:k]]``, ``order[:k]``) hold as tensors. Why not, when an item is read as
    a Python int (arithmetic, a list index, ``int(i)``)."""
    p = ctx.parent(call)
    target: cst.BaseExpression | None = None
    if isinstance(p, cst.Assign) and p.value is call:
        assign: cst.Assign = p
    elif isinstance(p, cst.Subscript) and p.value is call and how == "sorted":
        up = ctx.parent(p)
        if not isinstance(up, cst.Assign) or up.value is not p:
            return []
        assign = up
    else:
        return []  # read where it is made (`x[sorted(...)]`): as a tensor
    if len(assign.targets) == 1:
        target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return NoFix("the ordered indices are bound to something other than one name")
    fn = ctx.function(call)
    if fn is None:
        return NoFix("the ordering is not in a function")
    name = target.value
    line = ctx.span(assign)[0]
    if any(ctx.span(b)[0] > line for b in bound_names(fn.body).get(name, [])):
        return NoFix(f"`{name}` is bound again after the ordering")
    out: list[tuple[cst.Subscript, cst.BaseExpression]] = []

    def item(n: cst.CSTNode) -> NoFix | None:
        got = one_element_index(ctx, n)
        if got is None:
            stmt = ctx.statement(n)
            use = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else ""
            return NoFix(
                f"an ordered index is read as a Python int in `{use}` (not only as the index of "
                "a tensor): as a tensor it would still break there (`.tolist()` of the order "
                "would too)"
            )
        out.append(got)
        return None

    for r in name_nodes(fn.body, name, reads_only=True):
        if ctx.span(r)[0] <= line:
            continue
        if how != "sorted":
            why = item(r)
            if why is not None:
                return why
            continue
        e: cst.CSTNode = r
        up = ctx.parent(e)
        if (
            isinstance(up, cst.Subscript)
            and up.value is e
            and all(isinstance(el.slice, cst.Slice) for el in up.slice)
        ):
            e = up  # `order[:k]`: still the order
        if _in_index(ctx, e):
            continue
        loop = ctx.parent(e)
        if isinstance(loop, (cst.For, cst.CompFor)) and loop.iter is e:
            if not isinstance(loop.target, cst.Name):
                return NoFix(f"the items of `{name}` are unpacked in a loop")
            var = loop.target.value
            scope: cst.CSTNode = (
                loop.body if isinstance(loop, cst.For) else ctx.parent(loop) or loop
            )
            for v in name_nodes(scope, var, reads_only=True):
                if v is loop.target:
                    continue
                why = item(v)
                if why is not None:
                    return why
            continue
        stmt = ctx.statement(r)
        use = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
        return NoFix(
            f"`{name}` is used in `{use}`: only indexing tensors, slicing and looping over it "
            "are known to hold for an index tensor"
        )
    return out


def _only_param(key: cst.Lambda) -> cst.Name | None:
    """The name of a lambda's one parameter (``lambda t: ...``), or None."""
    ps = key.params
    if (
        len(ps.params) != 1
        or isinstance(ps.star_arg, cst.Param)
        or ps.kwonly_params
        or ps.star_kwarg is not None
    ):
        return None
    return ps.params[0].name
