"""Reads of an int counter on ``self`` that stay in the graph once the counter is a buffer.

A step counter (``self.steps += 1``) that forward also reads as a Python number
(``tau = max(0.1, 1.0 - self.steps / self.anneal)``, ``scale = 0.0 if self.steps < self.warmup
else 1.0``, ``if self.steps < self.warmup: w = w * ...``) is a guard on its value: a recompile
per call until dynamo marks it dynamic, and a break where it decides a branch. As a 0-d tensor
buffer stepped in place, every read is tensor arithmetic, written together:

- arithmetic with Python numbers (``self.base * 0.5 ** (self.steps // self.every)``) computes
  the same as a 0-d tensor, as it is;
- ``max(n, e)`` / ``min(n, e)`` -> ``torch.clamp(e, min=n)`` / ``torch.clamp(e, max=n)``;
- ``a if <cmp> else b`` -> ``torch.where(<cmp>, a, b)``;
- ``if <cmp>: x = v`` (plain assignments, an optional ``else`` of the same form) ->
  ``x = torch.where(<cmp>, v, x)`` (both sides are arithmetic, evaluated either way).

The value model: each read climbs through the expression it is in; whatever it reaches
(a local name, the return value of a helper method, a ``torch.where`` side) must end in
arithmetic with a tensor (:func:`sinks_ok`), so that a 0-d tensor in place of the Python
number computes the same values. Anything else (an index, a ``range``, a value returned to the
model's caller, a bare alias ``s = self.steps`` that the in-place step would change under it)
refuses the whole rewrite with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    TORCH_OF,
    all_nodes,
    name_nodes,
    number_expr,
)
from compilelint.fix.codemods.observe import self_attr
from compilelint.fix.context import FixContext
from compilelint.fix.evidence import tensor_only_chain
from compilelint.fix.records import NoFix

_CMP = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


@dataclass
class Plan:
    """What the joint rewrite changes: ``max``/``min`` calls, ternaries, ``if`` statements
    (by node identity), and the locals and methods through which the value flows."""

    clamps: dict[int, tuple[str, cst.BaseExpression, cst.BaseExpression]] = field(
        default_factory=dict
    )  # id(call) -> ("min"|"max", tensor arg, bound)
    wheres: set[int] = field(default_factory=set)  # id(IfExp)
    ifs: dict[int, cst.If] = field(default_factory=dict)
    clones: set[int] = field(default_factory=set)  # id(bare read) kept apart from the step
    funcs: dict[int, str] = field(default_factory=dict)  # id(math.f call) -> torch function
    reads: list[str] = field(default_factory=list)  # code of the statements rewritten
    # id(if) -> its statements lowered under the counter's condition (branchless.Lowering)
    lowered: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    # what the lowered branches' sides compute (for the one-sided-submodule proposal)
    sides: tuple[list[cst.BaseExpression], list[cst.BaseExpression]] = field(
        default_factory=lambda: ([], [])
    )


def _mentions(e: cst.CSTNode, attr: str) -> bool:
    return any(self_attr(n) == attr for n in all_nodes(e))


def _number_like(ctx: FixContext, e: cst.BaseExpression, attr: str) -> bool:
    """A Python number (or the counter itself): a literal, arithmetic of them, a name, a
    ``self`` attribute (a hyperparameter)."""
    if number_expr(e) or isinstance(e, cst.Name) or self_attr(e) is not None:
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return _number_like(ctx, e.expression, attr)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
        return _number_like(ctx, e.left, attr) and _number_like(ctx, e.right, attr)
    return False


def _tensor(ctx: FixContext, e: cst.BaseExpression) -> bool:
    return ctx.is_tensor(e) or tensor_only_chain(e)


class _Walk:
    def __init__(self, ctx: FixContext, cls: cst.ClassDef, attr: str) -> None:
        self.ctx, self.cls, self.attr = ctx, cls, attr
        self.plan = Plan()
        self.seen: set[tuple[int, str]] = set()

    def read(self, use: cst.Attribute) -> str | None:
        """Climb from a read of the counter; None when every sink takes a tensor, else why."""
        p = self.ctx.parent(use)
        if isinstance(p, cst.Assign) and p.value is use:
            # `step = self.steps`: a local alias of the buffer, which a later in-place step
            # would change under it: it reads a copy (`.clone()`, a 0-d tensor)
            if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                return "read as is into a store"
            self.plan.clones.add(id(use))
            return self.sink(use)
        if not isinstance(p, (cst.BinaryOperation, cst.Comparison, cst.Arg, cst.UnaryOperation)):
            return "read as is (the in-place step would change the value it names)"
        return self.climb(use)

    def climb(self, e: cst.BaseExpression) -> str | None:
        ctx, cur = self.ctx, e
        while True:
            p = ctx.parent(cur)
            if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
                cur = p
                continue
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
                other = p.right if p.left is cur else p.left
                if _tensor(ctx, other):
                    return None
                if not _number_like(ctx, other, self.attr):
                    return f"it meets `{ctx.code(other).strip()[:40]}`, not a number"
                cur = p
                continue
            if isinstance(p, cst.Arg):
                call = ctx.parent(p)
                got = self._clamp(call, p) if isinstance(call, cst.Call) else None
                if isinstance(got, str):
                    return got
                if got is None:
                    if isinstance(call, cst.Call) and _torch_call(ctx, call):
                        cur = call  # a torch function of a tensor is a tensor
                        continue
                    fn = _math_call(call) if isinstance(call, cst.Call) else None
                    if fn is not None:
                        # `math.cos(math.pi * self.it / n)`, `math.exp(-self.steps / tau)`:
                        # the torch function of the same meaning on the 0-d tensor
                        self.plan.funcs[id(call)] = fn
                        cur = call
                        continue
                    code = (
                        ctx.code(call).strip().splitlines()[0][:40]
                        if call is not None
                        else "a call"
                    )
                    if isinstance(call, cst.Call) and _numpy_fn(call):
                        return (
                            f"it is an argument of `{code}`, a NumPy function whose float64 "
                            "result makes the tensors it meets float64 (`torch.<f>` of the "
                            "0-d buffer would keep float32: write it by hand if that is meant)"
                        )
                    return f"it is an argument of `{code}`"
                cur = got
                continue
            if isinstance(p, cst.Comparison):
                return self._compare(p)
            return self.sink(cur)

    def _clamp(self, call: cst.Call, arg: cst.Arg) -> cst.Call | str | None:
        f = call.func
        if not (isinstance(f, cst.Name) and f.value in ("max", "min")):
            return None
        if len(call.args) != 2 or any(a.keyword or a.star for a in call.args):
            return f"`{f.value}` is not called with two positional numbers"
        other = call.args[1] if call.args[0] is arg else call.args[0]
        if _mentions(other.value, self.attr) or not _number_like(self.ctx, other.value, self.attr):
            return f"`{f.value}` compares it with `{self.ctx.code(other.value).strip()[:40]}`"
        self.plan.clamps[id(call)] = ("min" if f.value == "max" else "max", arg.value, other.value)
        return call

    def _compare(self, cmp: cst.Comparison) -> str | None:
        ctx = self.ctx
        if len(cmp.comparisons) != 1 or not isinstance(cmp.comparisons[0].operator, _CMP):
            return f"it is compared in `{ctx.code(cmp).strip()[:40]}`"
        for side in (cmp.left, cmp.comparisons[0].comparator):
            if not _mentions(side, self.attr) and not _number_like(ctx, side, self.attr):
                return f"it is compared with `{ctx.code(side).strip()[:40]}`"
        p = ctx.parent(cmp)
        if isinstance(p, cst.IfExp) and p.test is cmp:
            self.plan.wheres.add(id(p))
            return self.climb(p)
        if isinstance(p, cst.If) and p.test is cmp:
            return self._if(p)
        return (
            f"the comparison `{ctx.code(cmp).strip()[:40]}` decides Python control flow (a "
            "data-dependent branch as a tensor; as an int each counter value is a guard, a "
            "recompile per value)"
        )

    def _if(self, node: cst.If) -> str | None:
        ctx = self.ctx
        if id(node) in self.plan.ifs:
            return None
        fn = ctx.function(node)
        if fn is None:
            return "the branch is not in a function"
        branches = [node.body]
        if node.orelse is not None:
            if not isinstance(node.orelse, cst.Else):
                return "the branch has an `elif`"
            branches.append(node.orelse.body)
        targets: list[str] = []
        if any(_assigns(body) is None for body in branches):
            return self._lower(node)
        for body in branches:
            names = _assigns(body)
            if names is None:
                return "a branch holds more than plain assignments of local names"
            targets += [n for n in names if n not in targets]
        for body in branches:
            for st in body.body:
                assert isinstance(st, cst.SimpleStatementLine)
                value = st.body[0].value  # type: ignore[attr-defined]
                if any(isinstance(n, cst.Call) for n in all_nodes(value)) and not all(
                    _clampable(n) for n in all_nodes(value) if isinstance(n, cst.Call)
                ):
                    return "a branch calls a function (both sides would run)"
                if any(
                    isinstance(n, cst.BinaryOperation)
                    and not isinstance(n.operator, ARITH_OPERATORS)
                    for n in all_nodes(value)
                ):
                    return "a branch computes more than arithmetic"
        if node.orelse is None and not all(_bound_before(ctx, fn, node, t) for t in targets):
            return "a name the branch sets is not set before it"
        self.plan.ifs[id(node)] = node
        self.plan.reads.append(ctx.code(node.test).strip())
        tensors = {
            st.body[0].targets[0].target.value  # type: ignore[attr-defined]
            for body in branches
            for st in body.body  # type: ignore[attr-defined]
            if _tensor(ctx, st.body[0].value)  # type: ignore[attr-defined]
        }
        for t in targets:
            if t in tensors:
                continue  # a tensor either way: `torch.where` keeps it one
            why = self.sink_name(fn, t)
            if why:
                return why
        return None

    def _lower(self, node: cst.If) -> str | None:
        """A branch on the counter whose body is more than plain assignments (a loss term
        added every ``policy_freq`` calls, a submodule joining after a warm-up): lowered one
        statement at a time under ``cond = <the comparison>`` (a 0-d bool tensor once the
        counter is a buffer), as :mod:`branchless` lowers a tensor ``if``."""
        from compilelint.fix.codemods.branchless import Lowering

        ctx = self.ctx
        if not isinstance(ctx.parent(node), cst.IndentedBlock):
            return "the branch is not inside a function body"
        if node.orelse is not None and not isinstance(node.orelse, cst.Else):
            return "the branch has an `elif`"
        low = Lowering(ctx, node, raw_test=node.test)
        cond = ctx.fresh_name("cond")
        body = low.block(_suite(node.body), cst.Name(cond), 0, True)
        if isinstance(body, NoFix):
            return f"a branch has no branchless form ({body.reason})"
        first = cst.Assign(
            [cst.AssignTarget(cst.Name(cond))], node.test.with_changes(lpar=[], rpar=[])
        )
        stmts: list[cst.BaseStatement] = [cst.SimpleStatementLine([first]), *body]
        if isinstance(node.orelse, cst.Else):
            ncond = ctx.fresh_name("cond")
            other = low.block(_suite(node.orelse.body), cst.Name(ncond), 1, False)
            if isinstance(other, NoFix):
                return f"the `else` has no branchless form ({other.reason})"
            neg = cst.parse_expression(f"{ctx.torch('logical_not')}({cond})")
            stmts.append(
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(ncond))], neg)])
            )
            stmts.extend(other)
        if not low.values[0] and not low.values[1]:
            return "the branch assigns nothing"
        stmts[0] = stmts[0].with_changes(leading_lines=node.leading_lines)
        self.plan.lowered[id(node)] = stmts
        self.plan.sides[0].extend(low.values[0])
        self.plan.sides[1].extend(low.values[1])
        self.plan.reads.append(ctx.code(node.test).strip())
        return None

    def sink(self, e: cst.BaseExpression) -> str | None:
        """Where a tensor value ends: every path must reach arithmetic with a tensor."""
        ctx = self.ctx
        key = (id(e), "e")
        if key in self.seen:
            return None
        self.seen.add(key)
        p = ctx.parent(e)
        if isinstance(p, cst.Assign) and p.value is e:
            if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                return f"it is stored in `{ctx.code(p.targets[0].target).strip()[:40]}`"
            fn = ctx.function(p)
            if fn is None:
                return "it is set outside a function"
            return self.sink_name(fn, p.targets[0].target.value)
        if isinstance(p, cst.Element) and isinstance(ctx.parent(p), cst.Tuple):
            tup = ctx.parent(p)
            ret = ctx.parent(tup) if tup is not None else None
            if isinstance(ret, cst.Return):
                return self._returned(ret)
        if isinstance(p, cst.Return) and p.value is e:
            return self._returned(p)
        if isinstance(p, (cst.IfExp,)) and p.test is not e and id(p) in self.plan.wheres:
            return None  # a side of a `torch.where` written for the counter: climbed there
        stmt = ctx.statement(e)
        code = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else ctx.code(e)
        return f"it is used in `{code[:50]}`"

    def sink_name(self, fn: cst.FunctionDef, name: str) -> str | None:
        key = (id(fn), name)
        if key in self.seen:
            return None
        self.seen.add(key)
        for r in name_nodes(fn.body, name, reads_only=True):
            why = self._name_read(r)
            if why:
                return f"`{name}` {why}"
        return None

    def _name_read(self, r: cst.Name) -> str | None:
        """A read of a local that holds the counter's value: the same climb, where a
        ``torch.where`` that the plan writes (or an ``if`` it turns into one) takes it too."""
        p = self.ctx.parent(r)
        if isinstance(p, cst.IfExp) and p.test is not r:
            # a side of a ternary: fine when the ternary is (or becomes) a torch.where
            if isinstance(p.test, cst.Comparison) and _mentions(p.test, self.attr):
                self.plan.wheres.add(id(p))
                return self.climb(p)
            return "is a side of a Python ternary"
        return self.climb(r)

    def _returned(self, ret: cst.Return) -> str | None:
        ctx = self.ctx
        fn = ctx.function(ret)
        if fn is None or fn.name.value in ("forward", "__call__"):
            return "it is returned to the model's caller (who would get a tensor)"
        if fn.decorators:
            return f"it is returned by the decorated `{fn.name.value}`"
        name, calls = fn.name.value, 0
        for n in all_nodes(self.cls):
            if isinstance(n, cst.Attribute) and self_attr(n) == name:
                call = ctx.parent(n)
                if not (isinstance(call, cst.Call) and call.func is n):
                    return f"`self.{name}` is passed around as a function"
                key = (id(call), "call")
                if key in self.seen:
                    continue
                self.seen.add(key)
                why = self.climb(call)
                if why:
                    return f"the value of `self.{name}()` {why}"
                calls += 1
        return None if calls else f"nothing in the class calls `self.{name}()`"


def _torch_call(ctx: FixContext, call: cst.Call) -> bool:
    f = call.func
    return (
        isinstance(f, cst.Attribute)
        and isinstance(f.value, cst.Name)
        and f.value.value in ("torch", ctx.torch())
    )


def _math_call(call: cst.Call) -> str | None:
    """``torch.<f>`` for ``math.f(x)`` of one argument. Not ``np.f(x)``: NumPy's float64
    scalar promotes the tensors it meets to float64 (the verifier saw the outputs' dtype
    change), which ``torch.f`` of a 0-d tensor would not."""
    f = call.func
    if not (
        isinstance(f, cst.Attribute)
        and isinstance(f.value, cst.Name)
        and f.value.value == "math"
        and f.attr.value in TORCH_OF
    ):
        return None
    if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return None
    return TORCH_OF[f.attr.value]


def _numpy_fn(call: cst.Call) -> bool:
    f = call.func
    return (
        isinstance(f, cst.Attribute)
        and isinstance(f.value, cst.Name)
        and f.value.value in ("np", "numpy")
    )


def _clampable(n: cst.Call) -> bool:
    return isinstance(n.func, cst.Name) and n.func.value in ("max", "min")


def _assigns(body: cst.BaseSuite) -> list[str] | None:
    """The local names a branch body sets with plain ``x = v`` statements, or None."""
    if not isinstance(body, cst.IndentedBlock):
        return None
    out: list[str] = []
    for st in body.body:
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            return None
        a = st.body[0]
        if not (
            isinstance(a, cst.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
        ):
            return None
        name = a.targets[0].target.value
        if name in out or any(n.value in out for n in name_nodes(a.value)):
            return None  # a later statement reads what an earlier one set: not one where each
        out.append(name)
    return out


def _bound_before(ctx: FixContext, fn: cst.FunctionDef, node: cst.If, name: str) -> bool:
    line = ctx.span(node)[0]
    for n in name_nodes(fn.body, name):
        p = ctx.parent(n)
        if isinstance(p, cst.AssignTarget) and ctx.span(n)[0] < line:
            if not any(isinstance(a, (cst.If, cst.For, cst.While)) for a in _between(ctx, p, fn)):
                return True
    return any(p.name.value == name for p in fn.params.params)


def _between(ctx: FixContext, node: cst.CSTNode, fn: cst.FunctionDef) -> list[cst.CSTNode]:
    out = []
    for a in ctx.ancestors(node):
        if a is fn:
            break
        out.append(a)
    return out


class _Apply(cst.CSTTransformer):
    """Writes the plan into the nodes it covers (by identity of the original nodes)."""

    def __init__(self, ctx: FixContext, plan: Plan) -> None:
        self.ctx, self.plan = ctx, plan

    def _fn(self, name: str) -> cst.BaseExpression:
        return cst.parse_expression(self.ctx.torch(name))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        fn = self.plan.funcs.get(id(original))
        if fn is not None:
            return updated.with_changes(func=self._fn(fn))
        got = self.plan.clamps.get(id(original))
        if got is None:
            return updated
        kw, _, _ = got
        t_idx = next(
            i for i, a in enumerate(original.args) if a.value is got[1]
        )  # the tensor side, as updated
        tensor = updated.args[t_idx].value
        bound = updated.args[1 - t_idx].value
        return cst.Call(
            func=self._fn("clamp"),
            args=[
                cst.Arg(tensor),
                cst.Arg(
                    bound,
                    keyword=cst.Name(kw),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""),
                    ),
                ),
            ],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if id(original) not in self.plan.clones:
            return updated
        return cst.Call(func=cst.Attribute(value=updated, attr=cst.Name("clone")))

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        if id(original) not in self.plan.wheres:
            return updated
        return cst.Call(
            func=self._fn("where"),
            args=[_arg(updated.test), _arg(updated.body), _arg(updated.orelse)],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )

    def leave_If(
        self, original: cst.If, updated: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if id(original) in self.plan.lowered:
            return cst.FlattenSentinel(self.plan.lowered[id(original)])
        if id(original) not in self.plan.ifs:
            return updated
        test = updated.test
        yes = _values(updated.body)
        no = _values(updated.orelse.body) if isinstance(updated.orelse, cst.Else) else {}
        out: list[cst.BaseStatement] = []
        for i, name in enumerate(dict.fromkeys([*yes, *no])):
            a = yes.get(name, cst.Name(name))
            b = no.get(name, cst.Name(name))
            value = cst.Call(func=self._fn("where"), args=[_arg(test), _arg(a), _arg(b)])
            st = cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(name))], value)],
                leading_lines=updated.leading_lines if i == 0 else (),
            )
            out.append(st)
        return cst.FlattenSentinel(out)


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=list(suite.body))]
    return list(suite.body)  # type: ignore[attr-defined]


def _arg(e: cst.BaseExpression) -> cst.Arg:
    if e.lpar and not isinstance(e, (cst.Tuple, cst.GeneratorExp)):
        e = e.with_changes(lpar=[], rpar=[])
    return cst.Arg(e)


def _values(body: cst.BaseSuite) -> dict[str, cst.BaseExpression]:
    out: dict[str, cst.BaseExpression] = {}
    assert isinstance(body, cst.IndentedBlock)
    for st in body.body:
        assert isinstance(st, cst.SimpleStatementLine)
        a = st.body[0]
        assert isinstance(a, cst.Assign) and isinstance(a.targets[0].target, cst.Name)
        out[a.targets[0].target.value] = a.value
    return out


def tensor_reads(
    ctx: FixContext,
    cls: cst.ClassDef,
    attr: str,
    reads: list[cst.Attribute],
    sides: tuple[list[cst.BaseExpression], list[cst.BaseExpression]] | None = None,
) -> list[tuple[cst.CSTNode, cst.CSTNode]] | NoFix:
    """The joint rewrite of every read of the counter ``self.<attr>`` (a 0-d tensor buffer
    from now on) in ``reads``, or why one of them cannot take a tensor."""
    walk = _Walk(ctx, cls, attr)
    for use in reads:
        why = walk.read(use)
        if why:
            stmt = ctx.statement(use)
            code = ctx.code(stmt).strip().splitlines()[0] if stmt is not None else attr
            return NoFix(
                f"`self.{attr}` is also read in `{code[:50]}`: as a tensor buffer {why}; "
                "keep it a Python int outside `forward` (the training loop) or pass it in"
            )
    plan = walk.plan
    if sides is not None:  # what lowered branches compute on each side
        sides[0].extend(plan.sides[0])
        sides[1].extend(plan.sides[1])
    marked = (
        set(plan.clamps)
        | plan.wheres
        | set(plan.ifs)
        | plan.clones
        | set(plan.funcs)
        | set(plan.lowered)
    )
    if not marked:
        return []
    nodes = {id(n): n for n in all_nodes(cls) if id(n) in marked}
    tops = [n for i, n in nodes.items() if not any(id(a) in marked for a in ctx.ancestors(n))]
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for top in tops:
        new = top.visit(_Apply(ctx, plan))
        changes.append((top, new))  # type: ignore[arg-type]
    return changes
