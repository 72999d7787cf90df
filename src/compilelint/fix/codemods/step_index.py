"""A step index read with ``.item()`` from ``nonzero()`` and used only to index tensors
(issue 22, fix27b): diffusers' schedulers ::

    def index_for_timestep(self, timestep, schedule_timesteps=None):
        indices = (schedule_timesteps == timestep).nonzero()
        pos = 1 if len(indices) > 1 else 0
        return indices[pos].item()

``nonzero`` has a data-dependent shape and ``.item()`` leaves the graph (two breaks), and the
index then lives on ``self._step_index`` as a Python int that every compiled call guards on
(a recompile per step). The ``pos``-th match of a one-dimensional comparison is the number of
places whose running count of matches is at most ``pos``: ::

        matches = (schedule_timesteps == timestep).long()
        pos = torch.where(matches.sum() > 1, 1, 0)
        torch._assert_async(matches.sum() > pos, "...")
        return (matches.cumsum(0) <= pos).sum()

the same index as a 0-d tensor for any number of matches (eager's ``IndexError`` on too few
becomes the assertion's ``RuntimeError``). Applied only when every use of the method's value
in the file is tensor indexing: stored on ``self.<attr>`` (read through a property returning
it) whose every read is ``T[attr]``, ``T[attr + k]``, ``attr is None``, or ``attr += k``; or
a list comprehension of calls bound to a name read only as ``T[name]`` (then stacked). An
index read ``T[i]`` with ``i`` a 0-d tensor breaks too (``aten._local_scalar_dense``), so it
becomes ``T[torch.as_tensor(i, device=T.device).reshape(1)].squeeze(0)`` (a Python int there,
from another path such as ``self._begin_index``, gives the same element)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import name_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

_STEPS = (cst.Add, cst.Subtract)


def _item_return(ctx: FixContext, finding: Finding) -> tuple[cst.Return, cst.Subscript] | None:
    for call in ctx.nodes_at(finding, cst.Call):
        f = call.func
        if (
            isinstance(f, cst.Attribute)
            and f.attr.value == "item"
            and not call.args
            and isinstance(f.value, cst.Subscript)
            and isinstance(f.value.value, cst.Name)
        ):
            ret = ctx.parent(call)
            if isinstance(ret, cst.Return):
                return ret, f.value
    return None


def _is_self_attr(e: cst.CSTNode, names: set[str]) -> bool:
    return (
        isinstance(e, cst.Attribute)
        and isinstance(e.value, cst.Name)
        and e.value.value == "self"
        and e.attr.value in names
    )


def _one_index(sub: cst.Subscript) -> cst.BaseExpression | None:
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return None
    return sub.slice[0].slice.value


def _pure_ref(e: cst.BaseExpression) -> bool:
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def step_index_rewrite(ctx: FixContext, finding: Finding) -> Rewrite | NoFix | None:
    """The rewrite of the method and its callers, a ``NoFix`` with the reason when the form
    is this one but a use is not tensor indexing, or None when the ``.item()`` is not this
    form (the finding's other codemods then answer)."""
    got = _item_return(ctx, finding)
    if got is None:
        return None
    ret, sub = got
    fn = ctx.function(ret)
    cls = ctx.enclosing(ret, cst.ClassDef)
    if fn is None or cls is None or not isinstance(fn.body, cst.IndentedBlock):
        return None
    indices = sub.value.value  # type: ignore[attr-defined]
    body = list(fn.body.body)
    made: cst.SimpleStatementLine | None = None
    cmp: cst.Comparison | None = None
    for st in body:
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            continue
        a = st.body[0]
        if (
            isinstance(a, cst.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
            and a.targets[0].target.value == indices
        ):
            v = a.value
            if (
                isinstance(v, cst.Call)
                and not v.args
                and isinstance(v.func, cst.Attribute)
                and v.func.attr.value == "nonzero"
                and isinstance(v.func.value, cst.Comparison)
                and len(v.func.value.comparisons) == 1
                and isinstance(v.func.value.comparisons[0].operator, cst.Equal)
            ):
                made, cmp = st, v.func.value
            else:
                return None
    if made is None or cmp is None or ctx.parent(ret) is None:
        return None
    ret_line = ctx.statement(ret)
    if not isinstance(ret_line, cst.SimpleStatementLine) or ret_line not in body:
        return None
    pos = _one_index(sub)
    if pos is None:
        return None
    mask = ctx.fresh_name("matches")
    count = f"{mask}.sum()"
    changes: list[tuple[cst.CSTNode, object]] = []
    # every read of the indices: `len(indices)` in the position, `indices[pos]` in the return
    for r in name_nodes(fn.body, indices, reads_only=True):
        p = ctx.parent(r)
        if r is sub.value:
            continue
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "len"
        ):
            return NoFix(
                f"`{indices}` (the rows of `nonzero()`) is read as more than its length and the "
                "one row returned"
            )
    pos_stmt: cst.SimpleStatementLine | None = None
    if isinstance(pos, cst.Name):
        binds = [
            st
            for st in body
            if isinstance(st, cst.SimpleStatementLine)
            and len(st.body) == 1
            and isinstance(st.body[0], cst.Assign)
            and any(
                isinstance(t.target, cst.Name) and t.target.value == pos.value
                for t in st.body[0].targets
            )
        ]
        if len(binds) != 1:
            return NoFix(f"the position `{pos.value}` is not bound once in `{fn.name.value}`")
        pos_stmt = binds[0]
        value = cast(cst.Assign, pos_stmt.body[0]).value
        new_value = _position(ctx, value, indices, count)
        if new_value is None:
            return NoFix(
                f"the position `{ctx.code(value).strip()}` is not a number or a choice between "
                f"numbers on `len({indices})`"
            )
        changes.append((value, new_value))
    elif not isinstance(pos, cst.Integer):
        return NoFix(f"the row `{ctx.code(pos).strip()}` of `nonzero()` is not a number or a name")
    users = _callers(ctx, cls, fn.name.value)
    if isinstance(users, NoFix):
        return users
    changes.extend(users)  # type: ignore[arg-type]
    pos_code = ctx.code(pos).strip()
    t = ctx.torch()
    bare = ctx.module.code_for_node(cmp.with_changes(lpar=[], rpar=[])).strip()
    new_made = cst.parse_statement(f"{mask} = ({bare}).long()")
    changes.append((made, new_made.with_changes(leading_lines=made.leading_lines)))
    check = cst.parse_statement(
        f'{t}._assert_async({count} > {pos_code}, "{indices}[{pos_code}]: too few matches")'
    )
    new_ret = cst.parse_statement(f"return ({mask}.cumsum(0) <= {pos_code}).sum()")
    changes.append(
        (
            ret_line,
            cst.FlattenSentinel(
                [check.with_changes(leading_lines=ret_line.leading_lines), new_ret]
            ),
        )
    )
    return Rewrite(
        title=f"keep the step index of `{fn.name.value}()` a 0-d tensor (the `{pos_code}`-th "
        "match counted with `cumsum`, no `nonzero`/`.item()`) and index with it",
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _position(
    ctx: FixContext, value: cst.BaseExpression, indices: str, count: str
) -> cst.BaseExpression | None:
    """``1 if len(indices) > 1 else 0`` -> ``torch.where(count > 1, 1, 0)``; a number as is."""
    if isinstance(value, cst.Integer):
        return value
    if not (
        isinstance(value, cst.IfExp)
        and isinstance(value.body, cst.Integer)
        and isinstance(value.orelse, cst.Integer)
        and isinstance(value.test, cst.Comparison)
    ):
        return None
    test = ctx.code(value.test).strip()
    for form in (f"len({indices})",):
        if form in test:
            test = test.replace(form, count)
            break
    else:
        return None
    return cst.parse_expression(
        f"{ctx.torch('where')}({test}, {value.body.value}, {value.orelse.value})"
    )


def _callers(
    ctx: FixContext, cls: cst.ClassDef, method: str
) -> list[tuple[cst.CSTNode, cst.CSTNode]] | NoFix:
    """The changes at the uses of ``self.<method>(...)``'s value, or why one is not tensor
    indexing."""
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    attrs: set[str] = set()
    calls = [
        n
        for n in _all(ctx.module, cst.Call)
        if isinstance(n.func, cst.Attribute) and n.func.attr.value == method
    ]
    if not calls:
        return NoFix(f"`{method}()` is not called in the file")
    for c in calls:
        line = ctx.span(c)[0]
        if not _is_self_attr(c.func, {method}) or ctx.enclosing(c, cst.ClassDef) is not cls:
            return NoFix(f"`{method}()` is called on another object at line {line}")
        p = ctx.parent(c)
        if (
            isinstance(p, cst.Assign)
            and len(p.targets) == 1
            and isinstance(p.targets[0].target, cst.Attribute)
            and _is_self_attr(p.targets[0].target, {p.targets[0].target.attr.value})
        ):
            attrs.add(p.targets[0].target.attr.value)  # type: ignore[union-attr]
            continue
        if isinstance(p, cst.ListComp) and p.elt is c:
            a = ctx.parent(p)
            fn = ctx.function(c)
            if (
                fn is not None
                and isinstance(a, cst.Assign)
                and len(a.targets) == 1
                and isinstance(a.targets[0].target, cst.Name)
            ):
                name = a.targets[0].target.value
                reads = name_nodes(fn.body, name, reads_only=True)
                if reads and all(
                    isinstance(ctx.parent(ctx.parent(ctx.parent(r))), cst.Subscript)  # type: ignore[arg-type]
                    and isinstance(ctx.parent(r), cst.Index)
                    for r in reads
                ):
                    changes.append(
                        (p, cst.parse_expression(f"{ctx.torch('stack')}({ctx.code(p).strip()})"))
                    )
                    continue
        return NoFix(
            f"the value of `self.{method}()` at line {line} is used as more than a tensor "
            "index (`T[i]`)"
        )
    if not attrs:
        return changes
    props = set(attrs)
    getters: list[cst.CSTNode] = []
    for f in _all(cls, cst.FunctionDef):
        b = f.body.body if isinstance(f.body, cst.IndentedBlock) else []
        if (
            len(b) == 1
            and isinstance(b[0], cst.SimpleStatementLine)
            and isinstance(b[0].body[0], cst.Return)
            and b[0].body[0].value is not None
            and _is_self_attr(b[0].body[0].value, attrs)
        ):
            props.add(f.name.value)
            getters.append(b[0].body[0].value)
    for n in _all(cls, cst.Attribute):
        if not _is_self_attr(n, props) or n.attr.value == method or any(n is g for g in getters):
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.FunctionDef):
            continue
        if isinstance(p, (cst.AssignTarget, cst.AugAssign)):
            if isinstance(p, cst.AugAssign) and not isinstance(
                p.operator, (cst.AddAssign, cst.SubtractAssign)
            ):
                return NoFix(f"`{ctx.code(p).strip()}` does more than step the index")
            continue
        if isinstance(p, cst.Comparison) and all(
            isinstance(c.operator, (cst.Is, cst.IsNot)) and isinstance(c.comparator, cst.Name)
            for c in p.comparisons
        ):
            continue
        idx: cst.CSTNode = n
        if (
            isinstance(p, cst.BinaryOperation)
            and isinstance(p.operator, _STEPS)
            and p.left is n
            and isinstance(p.right, cst.Integer)
        ):
            idx = p
        ix = ctx.parent(idx)
        sub = ctx.parent(ctx.parent(ix)) if isinstance(ix, cst.Index) else None  # type: ignore[arg-type]
        if isinstance(sub, cst.Subscript) and _one_index(sub) is idx and _pure_ref(sub.value):
            tv = ctx.code(sub.value).strip()
            new = cst.parse_expression(
                f"{tv}[{ctx.torch('as_tensor')}({ctx.code(idx).strip()}, device={tv}.device)"
                ".reshape(1)].squeeze(0)"
            )
            changes.append((sub, new))
            continue
        return NoFix(
            f"`self.{n.attr.value}` (the step index) is read at line {ctx.span(n)[0]} as more "
            "than a tensor index, a step or a test for None"
        )
    return changes


def _all(root: cst.CSTNode, kind: type) -> list:  # type: ignore[type-arg]
    out: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kind):
                out.append(node)
            return True

    root.visit(V())
    return out
