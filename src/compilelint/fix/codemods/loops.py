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

from compilelint.fix.codemods.base import bound_names, names_in, side_effect
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
                body.append(st.with_changes(test=_join(py, cst.Or), leading_lines=st.leading_lines))
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
        start = _assign(cap, "0").with_changes(leading_lines=loop.leading_lines)
        return Proposal(
            title=f"cap the loop at {DEFAULT_CAP} iterations (`{cap} < {DEFAULT_CAP}`) and turn "
            "its tensor exits into a flag `active`; each update selects with "
            "`torch.where(active, new, old)`",
            changes=[
                (loop, cst.FlattenSentinel([start, init.with_changes(leading_lines=[]), new_loop]))
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
    body = low.block(list(loop.body.body), cst.Name(act), 0, False)  # type: ignore[attr-defined]
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
