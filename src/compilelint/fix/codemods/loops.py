"""``while`` loops on tensor values whose trip count a Python counter bounds: the tensor parts
of the exits become a cumulative flag, the Python parts stay Python (CL101).

A ``while`` loop stops when its condition is false or a ``break`` fires. Each exit condition
(the loop's condition, split on ``and``; the condition of an ``if ...: break`` at the top level
of the body, split on ``or``) is a conjunction/disjunction of **Python parts** (an int counter
against a bound: ``it < self.max_iter``, ``step == max_len``, ``n_steps >= cfg.max_iter``) and
**tensor parts** (``delta > tol``, ``not finished.all()``, ``shift < self.tol``). Dynamo unrolls
a loop whose exits are Python ints (their values are known while tracing); a tensor part
breaks the graph. The rewrite keeps every Python part where it was and replaces each tensor
part by an update of one flag::

    it = 0                                     it = 0
    while delta > tol and it < max_iter:       active = torch.ones((), dtype=torch.bool)
        it += 1                          ->    while it < max_iter:
        z = f(z)                                   active = torch.logical_and(active, delta > tol)
        delta = (z - z_old).abs().max()            it += 1
                                                   z = torch.where(active, f(z), z)
                                                   delta = torch.where(active, ..., delta)

``active`` is true exactly while eager would still be running (it turns false where a tensor
exit would have fired, and stays false: the flag is cumulative), every other statement of the
body is lowered under it one statement at a time (:mod:`branchless`: ``torch.where(active, new,
old)``, reports under an eager-only guard), so from the iteration where eager stopped on, no
value changes; the Python exits stop the loop at the iteration eager's Python exits would, or
later. The outputs equal eager's whether a tensor exit fires or not; the cost is the iterations
eager skipped. Required, or no rewrite: a counter started at an int literal before the loop,
stepped by ``+= 1`` once at the top level of the body and assigned nowhere else, bounded by a
Python exit (``<``, ``<=``, ``!=`` in the condition; ``>=``, ``>``, ``==`` in a break) against
a value the loop does not change (an attribute, a config field, an argument's default, a
literal, a shape); the counter not read after the loop (it runs on to the bound); no other
``break``/``continue``/``return`` in the body.

A loop without such a bound (a convergence loop, rejection sampling, bisection to a tolerance)
has no equivalent fixed trip count. The same form with a cap of :data:`DEFAULT_CAP` iterations
is **proposed**, with the reason: eager's result is kept only when it stops within the cap.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from compilelint.fix.codemods.base import (
    bound_names,
    leading_lines,
    name_nodes,
    names_in,
    side_effect,
)
from compilelint.fix.codemods.branchless import Lowering, reads_after
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite

DEFAULT_CAP = 100

# the comparison keeping a loop running (condition) / stopping it (break) on ``counter OP bound``
_RUN_OPS = (cst.LessThan, cst.LessThanEqual, cst.NotEqual)
_STOP_OPS = (cst.GreaterThanEqual, cst.GreaterThan, cst.Equal)
_FLIP = {
    cst.LessThan: cst.GreaterThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThan: cst.LessThan,
    cst.GreaterThanEqual: cst.LessThanEqual,
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
}

RECIPE = (
    "; by hand: give the loop a bound (a counter `it` and `it < max_iter` in the condition), "
    "keep an `active` flag (`active = active & cond`) and select each update with "
    "`torch.where(active, new, old)`, or use `torch._higher_order_ops.while_loop`"
)


def _ops(e: cst.BaseExpression, op: type) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, op) and not e.lpar:
        return _ops(e.left, op) + _ops(e.right, op)
    return [e.with_changes(lpar=[], rpar=[]) if isinstance(e, cst.BooleanOperation) else e]


def _join(parts: list[cst.BaseExpression], op: type) -> cst.BaseExpression:
    out = parts[0]
    for p in parts[1:]:
        out = cst.BooleanOperation(left=out, operator=op(), right=p)
    return out


def _code(e: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(e)


def _assign(name: str, value: str) -> cst.SimpleStatementLine:
    st = cst.parse_statement(f"{name} = {value}\n")
    assert isinstance(st, cst.SimpleStatementLine)
    return st


def _counter_cmp(
    e: cst.BaseExpression, ops: tuple[type, ...]
) -> tuple[str, cst.BaseExpression] | None:
    """``i OP B`` (or ``B OP' i``) with OP among ``ops``: (``i``, ``B``)."""
    if not (isinstance(e, cst.Comparison) and len(e.comparisons) == 1):
        return None
    op, right = e.comparisons[0].operator, e.comparisons[0].comparator
    if isinstance(e.left, cst.Name) and isinstance(op, ops):
        return e.left.value, right
    flipped = _FLIP.get(type(op))
    if isinstance(right, cst.Name) and flipped is not None and issubclass(flipped, ops):
        return right.value, e.left
    return None


def _break_if(st: cst.BaseStatement) -> cst.BaseExpression | None:
    """The condition of ``if cond: break`` (no ``else``)."""
    if not isinstance(st, cst.If) or st.orelse is not None:
        return None
    body = st.body.body if isinstance(st.body, cst.IndentedBlock) else None
    if body is None and isinstance(st.body, cst.SimpleStatementSuite):
        small = list(st.body.body)
    elif body is not None and len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine):
        small = list(body[0].body)
    else:
        return None
    if len(small) == 1 and isinstance(small[0], cst.Break):
        return st.test
    return None


def _step_of(st: cst.BaseStatement) -> str | None:
    """``c += 1`` (or ``c = c + 1``, ``c = 1 + c``): ``c``."""
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        a = st.body[0]
        if (
            isinstance(a, cst.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
            and isinstance(a.value, cst.BinaryOperation)
            and isinstance(a.value.operator, cst.Add)
        ):
            c = a.targets[0].target.value
            sides = (a.value.left, a.value.right)
            if any(isinstance(x, cst.Name) and x.value == c for x in sides) and any(
                isinstance(x, cst.Integer) and x.value == "1" for x in sides
            ):
                return c
        if (
            isinstance(a, cst.AugAssign)
            and isinstance(a.target, cst.Name)
            and isinstance(a.operator, cst.AddAssign)
            and isinstance(a.value, cst.Integer)
            and a.value.value == "1"
        ):
            return a.target.value
    return None


def _exits(node: cst.CSTNode, loop: cst.For | cst.While) -> list[cst.CSTNode]:
    """``break``/``continue``/``return``/``yield`` of ``loop`` itself inside ``node``."""
    out: list[cst.CSTNode] = []

    def walk(n: cst.CSTNode, inner_loop: bool) -> None:
        if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return
        if isinstance(n, (cst.Return, cst.Yield)) or (
            isinstance(n, (cst.Break, cst.Continue)) and not inner_loop
        ):
            out.append(n)
        for c in n.children:
            walk(c, inner_loop or (isinstance(n, (cst.For, cst.While)) and n is not loop))

    walk(node, False)
    return out


def bounded_while(
    ctx: FixContext,
    loop: cst.While,
    lowering: Callable[..., Lowering],
    tensor_test: Callable[[cst.BaseExpression], cst.BaseExpression | None],
    tensor_part: Callable[[cst.BaseExpression], bool],
) -> Rewrite | Proposal | NoFix:
    """The rewrite of ``loop`` (see the module's docstring), a proposal with a cap where no
    Python exit bounds it, or no fix with the reason."""
    if loop.orelse is not None:
        return NoFix("the `while` loop has an `else`" + RECIPE)
    block = ctx.parent(loop)
    fn = ctx.function(loop)
    if not isinstance(block, cst.IndentedBlock) or fn is None:
        return NoFix("the loop is not inside a function body")
    if not isinstance(loop.body, cst.IndentedBlock):
        return NoFix("the loop's body is on its own line" + RECIPE)
    stmts = list(loop.body.body)
    assigned = set(bound_names(loop.body))
    # the loop's condition: `True`, or parts joined by `and`
    test = loop.test
    is_true = isinstance(test, cst.Name) and test.value == "True"
    cond_parts = [] if is_true else _ops(test, cst.And)
    run_py: list[cst.BaseExpression] = []
    run_t: list[cst.BaseExpression] = []
    for p in cond_parts:
        (run_t if tensor_part(p) else run_py).append(p)
    # the body: counter steps, exits and the statements lowered between them
    exits: dict[int, tuple[list[cst.BaseExpression], list[cst.BaseExpression]]] = {}
    steps: dict[int, str] = {}
    for k, st in enumerate(stmts):
        c = _break_if(st)
        if c is not None:
            py: list[cst.BaseExpression] = []
            ts: list[cst.BaseExpression] = []
            for p in _ops(c, cst.Or):
                (ts if tensor_part(p) else py).append(p)
            exits[k] = (py, ts)
            continue
        name = _step_of(st)
        if name is not None:
            steps[k] = name
    for k, st in enumerate(stmts):
        if k in exits:
            continue
        other = _exits(st, loop)
        if other:
            return NoFix(f"the loop has another exit (`{ctx.code(other[0]).strip()}`)" + RECIPE)
    # the counter: a Python exit `c < B` / `c >= B` with `c += 1` its only update in the loop
    bounds: list[tuple[str, cst.BaseExpression]] = []
    for p in run_py:
        cb = _counter_cmp(p, _RUN_OPS)
        if cb is not None:
            bounds.append(cb)
    for py, _ in exits.values():
        for p in py:
            cb = _counter_cmp(p, _STOP_OPS)
            if cb is not None:
                bounds.append(cb)
    counter: str | None = None
    why = "no Python exit compares a counter stepped by `+= 1` with a bound"
    if bounds and not any(tensor_part(b) for _, b in bounds):
        why = ""
    for name, bound in bounds:
        if list(steps.values()).count(name) != 1:
            why = f"`{name}` is not stepped by `{name} += 1` once at the top level of the body"
            continue
        if sum(1 for b in bound_names(loop.body).get(name, [])) != 1:
            why = f"`{name}` is assigned elsewhere in the loop too"
            continue
        if names_in(bound) & assigned or side_effect(bound) is not None or tensor_part(bound):
            why = f"the bound `{_code(bound)}` changes in the loop or reads a tensor"
            continue
        start = _start(ctx, block, loop, name)
        if start is None:
            why = (
                f"`{name}` is not set to an int literal before the loop (and read nowhere between)"
            )
            continue
        if reads_after(ctx, loop, {name}):
            why = (
                f"`{name}` is read after the loop: it would run on to the bound, not stop "
                "where eager stopped"
            )
            continue
        counter = name
        break
    if bounds and counter is None:
        return NoFix((why or "no Python exit bounds the loop") + RECIPE)
    # every Python part reads only values the loop does not change, or the counter
    for p in run_py + [p for py, _ in exits.values() for p in py]:
        if (names_in(p) & assigned) - {counter} or side_effect(p) is not None:
            return NoFix(f"`{_code(p)}` in an exit reads a Python value the loop changes" + RECIPE)
    for p in run_t + [p for _, ts in exits.values() for p in ts]:
        if side_effect(p) is not None:
            return NoFix(f"`{_code(p)}` in an exit has a side effect" + RECIPE)
    if not run_t and not any(ts for _, ts in exits.values()):
        return NoFix("no exit of the loop reads a tensor")
    act = ctx.fresh_name("active")
    after = reads_after(ctx, loop, assigned)
    low = lowering(ctx, loop, need_select=after)
    body: list[cst.BaseStatement] = []

    def flag(parts: list[cst.BaseExpression], negate: bool, op: type) -> NoFix | None:
        t = tensor_test(_join(parts, op))
        if t is None:
            return NoFix(
                f"`{_code(_join(parts, op))}` cannot be written as one boolean tensor" + RECIPE
            )
        expr = _code(t)
        if negate:
            expr = f"{ctx.torch('logical_not')}({expr})"
        body.append(_assign(act, f"{ctx.torch('logical_and')}({act}, {expr})"))
        return None

    if run_t:
        bad = flag(run_t, False, cst.And)
        if bad is not None:
            return bad
    pending: list[cst.BaseStatement] = []

    def flush() -> NoFix | None:
        if pending:
            seg = low.block(pending, cst.Name(act), 0, False)
            if isinstance(seg, NoFix):
                return NoFix(seg.reason + RECIPE)
            body.extend(seg)
            pending.clear()
        return None

    for k, st in enumerate(stmts):
        if k in exits or (k in steps and steps[k] == counter):
            bad = flush()
            if bad is not None:
                return bad
            if k in steps:
                body.append(st)
                continue
            py, ts = exits[k]
            if ts:
                bad = flag(ts, True, cst.Or)
                if bad is not None:
                    return bad
            if py:
                body.append(
                    st.with_changes(test=_join(py, cst.Or), leading_lines=leading_lines(st))
                )
            continue
        pending.append(st)
    bad = flush()
    if bad is not None:
        return bad
    if not low.values[0]:
        return NoFix("the loop body assigns nothing")
    init = _assign(act, f"{ctx.torch('ones')}((), dtype={ctx.torch('bool')})").with_changes(
        leading_lines=loop.leading_lines
    )
    head = _join(run_py, cst.And) if run_py else cst.Name("True")
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] = []
    if counter is None:
        # no bound: the same form with a cap, proposed
        cap = ctx.fresh_name("it")
        cap_cmp = cst.parse_expression(f"{cap} < {DEFAULT_CAP}")
        head = (
            cst.BooleanOperation(left=cap_cmp, operator=cst.And(), right=head)
            if run_py
            else cap_cmp
        )
        body.append(_assign(cap, f"{cap} + 1"))
        new_loop = loop.with_changes(
            test=head, body=loop.body.with_changes(body=body), leading_lines=[]
        )
        cap_init = _assign(cap, "0").with_changes(leading_lines=loop.leading_lines)
        return Proposal(
            title=f"cap the loop at {DEFAULT_CAP} iterations (`{cap} < {DEFAULT_CAP}`) and turn "
            "its tensor exits into a flag `active`; each update selects with "
            "`torch.where(active, new, old)`",
            changes=[
                (
                    loop,
                    cst.FlattenSentinel([cap_init, init.with_changes(leading_lines=[]), new_loop]),
                )
            ],
            reason=f"{why}: the loop runs until a tensor condition holds, which no fixed trip "
            f"count shows. With a cap the outputs equal eager's only when eager stops within "
            f"{DEFAULT_CAP} iterations; choose the cap (a `max_iter` attribute or config field) "
            "and the loop always runs that many" + RECIPE,
            imports=("torch",),
        )
    new_loop = loop.with_changes(
        test=head, body=loop.body.with_changes(body=body), leading_lines=[]
    )
    changes.append((loop, cst.FlattenSentinel([init, new_loop])))
    return Rewrite(
        title=f"keep the Python exits on `{counter}` and turn the tensor exits into a flag "
        f"`{act}` that turns false where eager stopped; each update selects with "
        f"`torch.where({act}, new, old)`, so the state stops changing there (the loop runs on "
        "to its Python bound: the cost of the iterations eager skipped)",
        changes=changes,
        imports=("torch",),
    )


def _start(ctx: FixContext, block: cst.IndentedBlock, loop: cst.While, name: str) -> int | None:
    """The int literal ``name`` is set to before ``loop`` (read nowhere between)."""
    i = list(block.body).index(loop)
    for j in range(i - 1, -1, -1):
        st = block.body[j]
        if name in bound_names(st):
            if any(name in names_in(b) for b in block.body[j + 1 : i]):
                return None
            if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
                a = st.body[0]
                if (
                    isinstance(a, cst.Assign)
                    and len(a.targets) == 1
                    and isinstance(a.targets[0].target, cst.Name)
                    and isinstance(a.value, cst.Integer)
                ):
                    return int(a.value.value, 0)
            return None
    return None


def exit_of_while(ctx: FixContext, node: cst.If) -> cst.While | None:
    """The ``while`` loop that ``node`` (``if cond: break`` at the top level of its body) exits."""
    if _break_if(node) is None:
        return None
    block = ctx.parent(node)
    loop = ctx.parent(block) if block is not None else None
    if isinstance(block, cst.IndentedBlock) and isinstance(loop, cst.While):
        return loop
    return None


def range_of_tensor(ctx: FixContext, origin: cst.Call) -> cst.For | None:
    """The ``for`` loop whose iterable is ``range(origin)`` (``origin``: ``int(t)``/``t.item()``)."""
    arg = ctx.parent(origin)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    loop = ctx.parent(call) if isinstance(call, cst.Call) else None
    if (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "range"
        and len(call.args) == 1
        and call.args[0] is arg
        and isinstance(loop, cst.For)
        and loop.iter is call
    ):
        return loop
    return None


def counted_for(
    ctx: FixContext,
    loop: cst.For,
    count: cst.BaseExpression,
    lowering: Callable[..., Lowering],
) -> Rewrite | NoFix:
    """``for i in range(int(n)): <body indexing x[i]>`` -> ``for i in range(x.shape[0]):`` +
    ``active = i < n_`` (``n_ = n.long()``, the count truncated as ``int()`` does) + the body
    lowered under ``active``: the iterations at ``i >= n`` change nothing, the others are
    eager's. The static bound is the length of a tensor the body indexes at ``i``: eager raised
    ``IndexError`` for a count beyond it, so every count eager ran is covered."""
    if loop.orelse is not None or not isinstance(loop.target, cst.Name):
        return NoFix("the loop has an `else` or unpacks its variable")
    i = loop.target.value
    block = ctx.parent(loop)
    if not isinstance(block, cst.IndentedBlock) or ctx.function(loop) is None:
        return NoFix("the loop is not inside a function body")
    other = _exits(loop.body, loop)
    if other:
        return NoFix(f"the loop has an exit (`{ctx.code(other[0]).strip()}`)")
    assigned = set(bound_names(loop.body))
    if i in assigned:
        return NoFix(f"the loop assigns its variable `{i}`")
    if reads_after(ctx, loop, {i}):
        return NoFix(f"the loop variable `{i}` is read after the loop")
    bound: cst.BaseExpression | None = None
    for n in _walk(loop.body):
        if (
            isinstance(n, cst.Subscript)
            and n.slice
            and isinstance(n.slice[0].slice, cst.Index)
            and isinstance(n.slice[0].slice.value, cst.Name)
            and n.slice[0].slice.value.value == i
            and isinstance(n.value, (cst.Name, cst.Attribute))
            and not (names_in(n.value) & assigned)
            and ctx.is_tensor(n.value)
        ):
            bound = n.value
            break
    if bound is None:
        return NoFix(
            f"the body indexes no tensor at `{i}` whose length would bound the loop; by hand: "
            f"loop over a static bound and select each update with `torch.where({i} < n, new, "
            "old)`"
        )
    act, cnt = ctx.fresh_name("active"), ctx.fresh_name("n_iter")
    low = lowering(ctx, loop, need_select=reads_after(ctx, loop, assigned))
    body = low.block(list(loop.body.body), cst.Name(act), 0, False)  # type: ignore[arg-type, attr-defined]
    if isinstance(body, NoFix):
        return body
    if not low.values[0]:
        return NoFix("the loop body assigns nothing")
    cnt_src = _code(count)
    if not isinstance(count, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        cnt_src = f"({cnt_src})"
    pre = _assign(cnt, f"{cnt_src}.long()").with_changes(leading_lines=loop.leading_lines)
    new_loop = loop.with_changes(
        iter=cst.parse_expression(f"range({_code(bound)}.shape[0])"),
        body=loop.body.with_changes(body=[_assign(act, f"{i} < {cnt}"), *body]),
        leading_lines=[],
    )
    return Rewrite(
        title=f"loop over the static length of `{_code(bound)}` with a flag `{act} = {i} < n` "
        f"(the count `{_code(count)}` stays a tensor); each update selects with "
        f"`torch.where({act}, new, old)`, so the iterations past the count change nothing",
        changes=[(loop, cst.FlattenSentinel([pre, new_loop]))],
        imports=("torch",),
    )


def _walk(n: cst.CSTNode) -> list[cst.CSTNode]:
    out = [n]
    for c in n.children:
        out.extend(_walk(c))
    return out


# ---------------------------------------------------------------------------------------------
# `for` loops whose `continue`/`break` read tensors: a per-iteration mask and a cumulative flag


def _leave_if(st: cst.BaseStatement) -> tuple[cst.BaseExpression, str] | None:
    """``if cond: continue`` / ``if cond: break`` (no ``else``): (cond, "continue"/"break")."""
    if not isinstance(st, cst.If) or st.orelse is not None:
        return None
    if isinstance(st.body, cst.SimpleStatementSuite):
        small = list(st.body.body)
    elif (
        isinstance(st.body, cst.IndentedBlock)
        and len(st.body.body) == 1
        and isinstance(st.body.body[0], cst.SimpleStatementLine)
    ):
        small = list(st.body.body[0].body)
    else:
        return None
    if len(small) != 1:
        return None
    if isinstance(small[0], cst.Continue):
        return st.test, "continue"
    if isinstance(small[0], cst.Break):
        return st.test, "break"
    return None


def _int_start(block: cst.IndentedBlock, loop: cst.CSTNode, name: str) -> bool:
    """``name`` is set to an int literal before ``loop`` (``n = 0`` or ``x, n = 0.0, 0``) in
    ``block`` and read nowhere between."""
    stmts = list(block.body)
    i = stmts.index(loop)  # type: ignore[arg-type]
    for j in range(i - 1, -1, -1):
        st = stmts[j]
        if name not in bound_names(st):
            continue
        if any(name in names_in(b) for b in stmts[j + 1 : i]):
            return False
        if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
            return False
        a = st.body[0]
        if not (isinstance(a, cst.Assign) and len(a.targets) == 1):
            return False
        t, v = a.targets[0].target, a.value
        if isinstance(t, cst.Name):
            return t.value == name and isinstance(v, cst.Integer)
        if isinstance(t, cst.Tuple) and isinstance(v, cst.Tuple):
            for te, ve in zip(t.elements, v.elements):
                if isinstance(te.value, cst.Name) and te.value.value == name:
                    return isinstance(ve.value, cst.Integer) and len(t.elements) == len(v.elements)
        return False
    return False


def _int_step(st: cst.BaseStatement) -> tuple[str, str] | None:
    """``n += k`` (``k`` an int literal): (``n``, ``k``)."""
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        a = st.body[0]
        if (
            isinstance(a, cst.AugAssign)
            and isinstance(a.target, cst.Name)
            and isinstance(a.operator, cst.AddAssign)
            and isinstance(a.value, cst.Integer)
        ):
            return a.target.value, a.value.value
    return None


def _append_of(st: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    """``L.append(v)``: (``L``, ``v``)."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    e = st.body[0]
    if not (isinstance(e, cst.Expr) and isinstance(e.value, cst.Call)):
        return None
    f, args = e.value.func, e.value.args
    if (
        isinstance(f, cst.Attribute)
        and f.attr.value == "append"
        and isinstance(f.value, cst.Name)
        and len(args) == 1
        and args[0].keyword is None
        and not args[0].star
    ):
        return f.value.value, args[0].value
    return None


def _list_reduction(ctx: FixContext, use: cst.Name) -> tuple[cst.CSTNode, str] | None:
    """The read ``use`` of a list inside ``sum(L)`` ("sum"), ``torch.stack(L).sum()`` ("sum")
    or ``torch.stack(L).mean()`` ("mean"): (the reducing node, how)."""
    arg = ctx.parent(use)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or len(call.args) != 1 or call.args[0].keyword:
        return None
    if isinstance(call.func, cst.Name) and call.func.value == "sum":
        return call, "sum"
    f = call.func
    if not (
        isinstance(f, cst.Attribute)
        and f.attr.value == "stack"
        and ctx.code(f.value).strip() == ctx.torch()
    ):
        return None
    attr = ctx.parent(call)
    red = ctx.parent(attr) if isinstance(attr, cst.Attribute) else None
    if (
        isinstance(attr, cst.Attribute)
        and attr.value is call
        and attr.attr.value in ("sum", "mean")
        and isinstance(red, cst.Call)
        and not red.args
    ):
        return red, attr.attr.value
    return None


class _SafeDivisor(cst.CSTTransformer):
    """``a / d`` (``d`` a tensor of the original code) -> ``a / torch.where(keep, d, 1)``."""

    def __init__(self, ctx: FixContext, keep: str) -> None:
        self.ctx = ctx
        self.keep = keep

    def leave_BinaryOperation(
        self, orig: cst.BinaryOperation, new: cst.BinaryOperation
    ) -> cst.BaseExpression:
        if not isinstance(orig.operator, cst.Divide):
            return new
        try:
            tensor = self.ctx.is_tensor(orig.right)
        except Exception:  # a node the lowering built: not in the original's value model
            tensor = False
        if not tensor:
            return new
        where = cst.parse_expression(f"{self.ctx.torch('where')}({self.keep}, __d__, 1)")
        assert isinstance(where, cst.Call)
        inner = new.right.with_changes(lpar=[], rpar=[])
        where = where.with_changes(
            args=[where.args[0], where.args[1].with_changes(value=inner), where.args[2]]
        )
        return new.with_changes(right=where)


class _Sub(cst.CSTTransformer):
    def __init__(self, name: str) -> None:
        self.name = name

    def leave_Name(self, orig: cst.Name, new: cst.Name) -> cst.BaseExpression:
        return cst.Integer("0") if orig.value == self.name else new


MASK_RECIPE = (
    "; by hand: keep a per-iteration mask `keep = ~cond` for a `continue` (and a "
    "cumulative `active &= ~cond` for a `break`) and select each update with "
    "`torch.where(keep, new, old)`"
)


def masked_for(
    ctx: FixContext,
    loop: cst.For,
    lowering: Callable[..., Lowering],
    tensor_test: Callable[[cst.BaseExpression], cst.BaseExpression | None],
    tensor_part: Callable[[cst.BaseExpression], bool],
    *,
    new_iter: cst.BaseExpression | None = None,
    present: cst.BaseExpression | None = None,
    why_iter: str = "",
    pre: list[cst.BaseStatement] | None = None,
) -> Rewrite | Proposal | NoFix:
    """A ``for`` loop whose top-level ``if T: continue`` / ``if T: break`` read tensors::

        for c in range(self.num_classes):        for c in range(self.num_classes):
            tgt = onehot[:, c]                       tgt = onehot[:, c]
            if tgt.sum() == 0:              ->       keep = torch.logical_not(tgt.sum() == 0)
                continue                             dice = ...
            dice = ...                               total = torch.where(keep, total + (1 - dice), total)
            total = total + (1 - dice)               n_valid = n_valid + torch.where(keep, 1, 0)
            n_valid += 1

    A tensor ``continue`` skips the rest of one iteration: the statements after it are lowered
    under ``keep`` (per iteration, from the iteration's own values), so a skipped iteration
    changes nothing, as in eager. A tensor ``break`` ends every later iteration: ``active``
    (cumulative, set before the loop) turns false where it fires, and ``keep`` starts each
    iteration as ``active``. Python parts of an exit stay Python exits at their place (a
    Python ``break`` after a tensor ``continue`` of the same iteration would end the loop where
    eager went on: no fix). Statements before the first tensor exit of a loop without a tensor
    ``break`` run as written (eager ran them too). An int counter stepped by ``n += k`` becomes
    ``n + torch.where(keep, k, 0)`` (read after the loop only in arithmetic or ``max(n, k)``,
    which becomes a clamp); a list appended to at the top level and read after the loop only
    as ``sum(L)``, ``torch.stack(L).sum()`` or ``.mean()`` takes ``torch.where(keep, v, 0)``
    (for the mean, the keeps too: the mean over the kept entries). The iteration count is
    eager's (the loop's iterable is unchanged) unless ``new_iter`` replaces it: a loop over
    ``unique`` values becomes one over every class, ``present`` the first skip condition's
    negation (the class occurs), so the classes eager saw contribute in eager's order."""
    recipe = MASK_RECIPE
    if loop.orelse is not None:
        return NoFix("the loop has an `else`" + recipe)
    block = ctx.parent(loop)
    if not isinstance(block, cst.IndentedBlock) or ctx.function(loop) is None:
        return NoFix("the loop is not inside a function body")
    if not isinstance(loop.body, cst.IndentedBlock):
        return NoFix("the loop's body is on its own line" + recipe)
    stmts = list(loop.body.body)
    targets = set(bound_names(loop.target))
    var = loop.target.value if isinstance(loop.target, cst.Name) else None

    def is_tensor_part(p: cst.BaseExpression) -> bool:
        if not tensor_part(p):
            return False
        if new_iter is not None and var is not None and var in names_in(p):
            # the class becomes a Python int: a part that reads a tensor only through it
            return tensor_part(p.visit(_Sub(var)))  # type: ignore[arg-type]
        return True

    leaves: dict[int, tuple[str, list[cst.BaseExpression], list[cst.BaseExpression]]] = {}
    for k, st in enumerate(stmts):
        lv = _leave_if(st)
        if lv is None:
            other = _exits(st, loop)
            if other:
                return NoFix(f"the loop has another exit (`{ctx.code(other[0]).strip()}`)" + recipe)
            continue
        cond, kind = lv
        if side_effect(cond) is not None:
            return NoFix(f"`{_code(cond)}` in an exit has a side effect" + recipe)
        py: list[cst.BaseExpression] = []
        ts: list[cst.BaseExpression] = []
        for p in _ops(cond, cst.Or):
            (ts if is_tensor_part(p) else py).append(p)
        leaves[k] = (kind, py, ts)
    tensor_breaks = any(kind == "break" and ts for kind, _, ts in leaves.values())
    if not any(ts for _, _, ts in leaves.values()) and present is None:
        return NoFix("no `continue`/`break` of the loop reads a tensor")
    assigned = set(bound_names(loop.body))
    if (tensor_breaks or new_iter is not None) and reads_after(ctx, loop, targets):
        return NoFix(
            f"the loop variable `{sorted(targets)[0]}` is read after the loop: it would hold "
            "the last value, not the one where eager stopped" + recipe
        )
    after = reads_after(ctx, loop, assigned)
    # counters and lists, at the top level of the body, after a tensor exit
    first_flag = 0 if (tensor_breaks or present is not None) else None
    if first_flag is None:
        first_flag = next((k for k, (_, _, ts) in leaves.items() if ts), len(stmts))
    counters: dict[int, tuple[str, str]] = {}
    appends: dict[int, tuple[str, cst.BaseExpression]] = {}
    fn = ctx.function(loop)
    assert fn is not None
    for k, st in enumerate(stmts):
        if k <= first_flag or k in leaves:
            continue
        step = _int_step(st)
        if step is not None and _int_start(block, loop, step[0]):
            counters[k] = step
            continue
        app = _append_of(st)
        if app is not None:
            appends[k] = app
    # a counter: stepped once, read elsewhere in the loop nowhere, after it in arithmetic/max()
    clamps: list[tuple[cst.Call, str, str]] = []
    for name, _ in counters.values():
        if (
            sum(1 for s in counters.values() if s[0] == name) != 1
            or len(bound_names(loop.body).get(name, [])) != 1
        ):
            return NoFix(f"`{name}` is stepped more than once in the loop" + recipe)
        steps = [stmts[k] for k, s in counters.items() if s[0] == name]
        if any(
            any(a is loop for a in ctx.ancestors(u))
            and not any(a is steps[0] for a in ctx.ancestors(u))
            for u in name_nodes(fn.body, name, reads_only=True)
        ):
            return NoFix(f"`{name}` is read inside the loop" + recipe)
        for u in name_nodes(fn.body, name, reads_only=True):
            if ctx.span(u)[0] <= ctx.span(loop)[0] or any(a is loop for a in ctx.ancestors(u)):
                continue
            up = ctx.parent(u)
            if isinstance(up, cst.BinaryOperation):
                continue
            call = ctx.parent(up) if isinstance(up, cst.Arg) else None
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value == "max"
                and len(call.args) == 2
                and all(isinstance(a.value, (cst.Integer, cst.Name)) for a in call.args)
            ):
                bound = next(a.value for a in call.args if a is not up)
                if isinstance(bound, cst.Integer):
                    clamps.append((call, name, bound.value))
                    continue
            stmt = ctx.statement(u)
            what = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
            return NoFix(
                f"the counter `{name}` becomes a tensor and is used in `{what[:60]}`, not only "
                "in arithmetic or `max(n, k)`" + recipe
            )
    # a list: new before the loop, appended once, read after only by a reduction
    reductions: list[tuple[cst.CSTNode, str, str]] = []
    lists = {name for name, _ in appends.values()}
    for name in lists:
        if sum(1 for s in appends.values() if s[0] == name) != 1:
            return NoFix(f"`{name}` is appended to more than once in the loop" + recipe)
        for u in name_nodes(fn.body, name, reads_only=True):
            if any(a is loop for a in ctx.ancestors(u)):
                if isinstance(ctx.parent(u), cst.Attribute) and any(
                    _append_of(s) is not None and _append_of(s)[0] == name  # type: ignore[index]
                    for s in stmts
                    if any(a is s for a in ctx.ancestors(u))
                ):
                    continue
                return NoFix(f"`{name}` is read inside the loop" + recipe)
            if ctx.span(u)[0] <= ctx.span(loop)[0]:
                continue
            red = _list_reduction(ctx, u)
            if red is None:
                stmt = ctx.statement(u)
                what = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else name
                return NoFix(
                    f"`{name}` collects the kept iterations' values and is used in "
                    f"`{what[:60]}`, not only as `sum({name})` or `torch.stack({name}).sum()`/"
                    "`.mean()`: its length is the count of kept iterations" + recipe
                )
            reductions.append((red[0], red[1], name))
    t = ctx.torch
    keep = ctx.fresh_name("keep")
    act = ctx.fresh_name("active") if tensor_breaks else ""
    keeps = {n: ctx.fresh_name(f"{n}_kept") for _, how, n in reductions if how == "mean"}
    low = lowering(ctx, loop, need_select=after)
    body: list[cst.BaseStatement] = []
    cur = False  # whether `keep` guards the statements from here on
    pending: list[cst.BaseStatement] = []

    def flush() -> NoFix | None:
        if not pending:
            return None
        if not cur:
            body.extend(pending)
            for st in pending:
                low.assigned.update(bound_names(st))
        else:
            seg = low.block(pending, cst.Name(keep), 0, False)
            if isinstance(seg, NoFix):
                return NoFix(seg.reason + recipe)
            # a divisor is 1 where the iteration is skipped: the side `torch.where` drops
            # has no 0/0 (an empty class, a count the skip tested for zero) whose gradient
            # would be NaN
            guard = _SafeDivisor(ctx, keep)
            body.extend(st.visit(guard) for st in seg)  # type: ignore[misc]
        pending.clear()
        return None

    if tensor_breaks:
        body.append(_assign(keep, act))
        cur = True
    if present is not None:
        pres = _code(present)
        body.append(_assign(keep, f"{t('logical_and')}({keep}, {pres})" if cur else pres))
        cur = True
    seen_tensor_continue = False
    for k, st in enumerate(stmts):
        if k in leaves:
            bad = flush()
            if bad is not None:
                return bad
            kind, py, ts = leaves[k]
            if py:
                if kind == "break" and seen_tensor_continue:
                    return NoFix(
                        f"the Python exit `{_code(_join(py, cst.Or))}` follows a tensor "
                        "`continue`: it would end the loop where eager went on" + recipe
                    )
                body.append(st.with_changes(test=_join(py, cst.Or)))
            if ts:
                tt = tensor_test(_join(ts, cst.Or))
                if tt is None:
                    return NoFix(
                        f"`{_code(_join(ts, cst.Or))}` cannot be written as one boolean tensor"
                        + recipe
                    )
                stop_code = _code(tt)
                if kind == "break":
                    body.append(
                        _assign(
                            act,
                            f"{t('logical_and')}({act}, {t('logical_not')}("
                            f"{t('logical_and')}({keep}, {stop_code})))",
                        )
                    )
                else:
                    seen_tensor_continue = True
                notc = f"{t('logical_not')}({stop_code})"
                body.append(_assign(keep, f"{t('logical_and')}({keep}, {notc})" if cur else notc))
                cur = True
            continue
        if k in counters and cur:
            bad = flush()
            if bad is not None:
                return bad
            n, inc = counters[k]
            body.append(_assign(n, f"{n} + {t('where')}({keep}, {inc}, 0)"))
            continue
        if k in appends and cur:
            bad = flush()
            if bad is not None:
                return bad
            n, v = appends[k]
            if not ctx.is_tensor(v):
                return NoFix(f"`{_code(v)}` appended to `{n}` is not known to be a tensor" + recipe)
            body.append(cst.parse_statement(f"{n}.append({t('where')}({keep}, {_code(v)}, 0))\n"))
            if n in keeps:
                body.append(cst.parse_statement(f"{keeps[n]}.append({keep})\n"))
            continue
        pending.append(st)
    bad = flush()
    if bad is not None:
        return bad
    pre = list(pre or [])
    if act:
        pre.append(_assign(act, f"{t('ones')}((), dtype={t('bool')})"))
    for n in keeps.values():
        pre.append(_assign(n, "[]"))
    new_loop = loop.with_changes(body=loop.body.with_changes(body=body), leading_lines=[])
    if new_iter is not None:
        new_loop = new_loop.with_changes(iter=new_iter)
    if pre:
        pre[0] = pre[0].with_changes(leading_lines=loop.leading_lines)
        repl: cst.CSTNode | cst.FlattenSentinel = cst.FlattenSentinel([*pre, new_loop])
    else:
        repl = new_loop.with_changes(leading_lines=loop.leading_lines)
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel]] = [(loop, repl)]
    for clamped, cname, floor in clamps:
        changes.append(
            (clamped, cst.parse_expression(f"{t('as_tensor')}({cname}).clamp(min={floor})"))
        )
    for reduced, how, lname in reductions:
        if how == "mean":
            kept = f"{t('stack')}({keeps[lname]})"
            changes.append(
                (reduced, cst.parse_expression(f"({t('stack')}({lname}).sum() / {kept}.sum())"))
            )
    title = (
        "turn the loop's tensor exits into masks: a `continue` skips the rest of its "
        f"iteration through `{keep}` (each update selects with `torch.where({keep}, new, old)`)"
    )
    if act:
        title += f", a `break` turns a cumulative `{act}` false where eager stopped"
    if new_iter is not None:
        title = why_iter + "; " + title
    if clamps:
        title += "; the counter stays a tensor (`max(n, k)` becomes a clamp)"
    return Rewrite(title=title, changes=changes, imports=("torch",))


exits_of = _exits


# ---------------------------------------------------------------------------------------------
# generation loops that grow their output and stop on a tensor: the padded form (proposed)

_PAD_ATTRS = ("pad_id", "pad_token_id", "pad_idx", "padding_idx", "pad")


def _grown(st: cst.BaseStatement) -> tuple[cst.BaseExpression, cst.CSTNode] | None:
    """``ids = torch.cat([ids, X], ...)`` or ``L.append(X)`` at the top level: (X, the node
    holding it)."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    s = st.body[0]
    if isinstance(s, cst.Expr):
        app = _append_of(st)
        return (app[1], st) if app is not None else None
    if not (
        isinstance(s, cst.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0].target, cst.Name)
        and isinstance(s.value, cst.Call)
        and isinstance(s.value.func, cst.Attribute)
        and s.value.func.attr.value in ("cat", "concat", "concatenate")
        and s.value.args
        and isinstance(s.value.args[0].value, (cst.List, cst.Tuple))
    ):
        return None
    els = s.value.args[0].value.elements  # type: ignore[attr-defined]
    name = s.targets[0].target.value
    if (
        len(els) == 2
        and isinstance(els[0].value, cst.Name)
        and els[0].value.value == name
        and name not in names_in(els[1].value)
    ):
        return els[1].value, st
    return None


class _Wrap(cst.CSTTransformer):
    def __init__(self, target: cst.BaseExpression, new: cst.BaseExpression) -> None:
        self.target, self.new = target, new

    def on_leave(self, orig: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return self.new if orig is self.target else new


def padded_growth(
    ctx: FixContext, loop: cst.For, exit_if: cst.If, test: cst.BaseExpression
) -> Proposal | None:
    """``for _ in range(N): ...; ids = torch.cat([ids, tok], 1); if stop(tok): break`` ->
    a cumulative ``done`` flag in place of the ``break`` and ``torch.where(done, pad, tok)``
    in place of each grown value: the loop always runs ``N`` steps and every step after the
    stop appends the pad. Proposed, never applied: the output holds ``N`` new entries where
    eager's stopped early (another shape); the entries up to the stop are eager's. The pad is
    the class's ``pad_id``-like attribute, else ``0`` (named in the reason)."""
    block = ctx.parent(exit_if)
    if not isinstance(block, cst.IndentedBlock) or loop.orelse is not None:
        return None
    stmts = list(block.body)
    grown = [(k, g) for k, st in enumerate(stmts) if (g := _grown(st)) is not None]
    if not grown:
        return None
    klass = ctx.enclosing(loop, cst.ClassDef)
    pad = "0"
    if klass is not None:
        src = ctx.code(klass)
        pad = next((f"self.{a}" for a in _PAD_ATTRS if f"self.{a} =" in src), "0")
    done = ctx.fresh_name("done")
    t = ctx.torch
    where = ctx.torch("where")
    k_exit = stmts.index(exit_if)
    new_body: list[cst.BaseStatement] = []
    for k, st in enumerate(stmts):
        if k == k_exit:
            new_body.append(_assign(done, f"{t('logical_or')}({done}, {_code(test)})"))
            continue
        g = next((gg for kk, gg in grown if kk == k), None)
        if g is None:
            new_body.append(st)
            continue
        val, _ = g
        wrapped = cst.parse_expression(f"{where}({done}, {pad}, __v__)")
        assert isinstance(wrapped, cst.Call)
        wrapped = wrapped.with_changes(
            args=[wrapped.args[0], wrapped.args[1], cst.Arg(val.with_changes(lpar=[], rpar=[]))]
        )
        new_body.append(st.visit(_Wrap(val, wrapped)))  # type: ignore[arg-type]
    init = _assign(done, f"{t('zeros')}((), dtype={t('bool')})").with_changes(
        leading_lines=loop.leading_lines
    )
    new_loop = loop.with_changes(
        body=loop.body.with_changes(body=new_body),  # type: ignore[union-attr]
        leading_lines=[],
    )
    iters = _code(loop.iter)
    return Proposal(
        title=f"replace the stop exit by a cumulative flag `{done}` and append `{pad}` (the "
        f"pad) after the stop: the loop always runs `{iters}` steps",
        changes=[(loop, cst.FlattenSentinel([init, new_loop]))],
        reason=f"`{_code(grown[0][1][1]).strip()}` grows the state every iteration, so where "
        f"eager stopped early it returned fewer entries; the padded loop returns all `{iters}` steps, "
        f"{pad} after the stop (the entries up to the stop are eager's): another shape, so it "
        "is not applied by itself. Apply it where the caller strips the pad or reads up to the "
        "stop (or keeps a `lengths` tensor)"
        + ("" if pad != "0" else "; `0` stands for the pad id: put yours"),
        imports=("torch",),
    )
