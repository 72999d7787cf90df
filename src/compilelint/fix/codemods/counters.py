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
    atom,
    name_nodes,
    number_expr,
)
from compilelint.fix.context import FixContext
from compilelint.fix.evidence import tensor_only_chain
from compilelint.fix.records import NoFix
from compilelint.static.analysis.walker import self_attr

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
    casts: dict[int, str] = field(default_factory=dict)  # id(float(...)/int(...)) -> method
    # reads handled by a lowering: the test of a nested `if`/`elif`, a report under the guard
    covered: set[int] = field(default_factory=set)
    # report lines (`print(..., self.steps)`) that run only in eager, reading `int(...)`
    reports: set[int] = field(default_factory=set)


def _mentions(e: cst.CSTNode, attr: str) -> bool:
    return any(self_attr(n) == attr for n in all_nodes(e))


def _number_like(ctx: FixContext, e: cst.BaseExpression, attr: str) -> bool:
    """A Python number (or the counter itself): a literal, arithmetic of them, a name, a
    ``self`` attribute (a hyperparameter), a size (``len(...)``, ``x.size(i)``, ``x.shape[i]``,
    ``x.dim()``, ``x.numel()``), ``math.f``/``int``/``float``/``round``/``abs`` of them."""
    if number_expr(e) or isinstance(e, cst.Name) or self_attr(e) is not None:
        return not ctx.is_tensor(e)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return _number_like(ctx, e.expression, attr)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
        return _number_like(ctx, e.left, attr) and _number_like(ctx, e.right, attr)
    if isinstance(e, cst.Subscript):  # `x.shape[0]`, `x.size()[1]`
        v = e.value
        return (isinstance(v, cst.Attribute) and v.attr.value == "shape") or (
            isinstance(v, cst.Call)
            and isinstance(v.func, cst.Attribute)
            and v.func.attr.value == "size"
        )
    if isinstance(e, cst.Call):
        f = e.func
        args = [a.value for a in e.args if not a.star and a.keyword is None]
        if len(args) != len(e.args):
            return False
        if isinstance(f, cst.Name):
            if f.value == "len":
                return True
            if f.value in ("int", "float", "round", "abs") and len(args) in (1, 2):
                return _number_like(ctx, args[0], attr) and not _mentions(args[0], attr)
            return False
        if isinstance(f, cst.Attribute):
            if f.attr.value == "size" and len(args) == 1:
                return True
            if f.attr.value in ("dim", "numel", "ndimension") and not args:
                return True
            if isinstance(f.value, cst.Name) and f.value.value == "math":
                return all(_number_like(ctx, a, attr) and not _mentions(a, attr) for a in args)
    return False


def _float_exp(e: cst.BaseExpression) -> bool:
    """A float literal exponent (``-0.5``), or a non-negative int literal."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return isinstance(e.expression, cst.Float) or (
            isinstance(e.operator, cst.Plus) and isinstance(e.expression, cst.Integer)
        )
    return isinstance(e, (cst.Float, cst.Integer))


def _tensor(ctx: FixContext, e: cst.BaseExpression) -> bool:
    return ctx.is_tensor(e) or tensor_only_chain(e)


class _Walk:
    def __init__(self, ctx: FixContext, cls: cst.ClassDef, attr: str) -> None:
        self.ctx, self.cls, self.attr = ctx, cls, attr
        self.plan = Plan()
        self.seen: set[tuple[int, str]] = set()

    def read(self, use: cst.Attribute) -> str | None:
        """Climb from a read of the counter; None when every sink takes a tensor, else why."""
        from compilelint.fix.codemods.branchless import reporting_call

        p = self.ctx.parent(use)
        line = self.ctx.statement(use)
        if (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and reporting_call(line.body[0])
            and isinstance(self.ctx.parent(line), cst.IndentedBlock)
        ):
            # a report (`print`, `logger.info`, `warnings.warn`) of the counter: it runs only
            # in eager, where it reads the Python number it printed before
            self.plan.reports.add(id(line))
            return None
        if isinstance(p, cst.Assign) and p.value is use:
            # `step = self.steps`: a local alias of the buffer, which a later in-place step
            # would change under it: it reads a copy (`.clone()`, a 0-d tensor)
            if len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                return "read as is into a store"
            self.plan.clones.add(id(use))
            return self.sink(use)
        if id(use) in self.plan.covered:
            return None
        if not isinstance(
            p,
            (
                cst.BinaryOperation,
                cst.Comparison,
                cst.ComparisonTarget,
                cst.Arg,
                cst.UnaryOperation,
                cst.BooleanOperation,
                cst.If,
                cst.IfExp,
            ),
        ) or (isinstance(p, cst.IfExp) and p.test is not use):
            return "read as is (the in-place step would change the value it names)"
        return self.climb(use)

    def climb(self, e: cst.BaseExpression) -> str | None:
        ctx, cur = self.ctx, e
        while True:
            p = ctx.parent(cur)
            if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
                cur = p
                continue
            if isinstance(p, cst.ComparisonTarget):
                p = ctx.parent(p)
            if (
                (isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not))
                or isinstance(p, cst.BooleanOperation)
                or (isinstance(p, (cst.If, cst.IfExp)) and p.test is cur)
            ):
                # its truth decides a condition (`if not self.steps % k:`): `!= 0` as a tensor
                return self._condition(cur)
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
                other = p.right if p.left is cur else p.left
                if isinstance(p.operator, cst.Power) and p.left is cur and not _float_exp(other):
                    # an int tensor to a negative int power raises where Python gave a float
                    return (
                        f"it is raised to `{ctx.code(other).strip()[:20]}`, not a float "
                        "literal (an int64 buffer to a negative int power raises; write the "
                        "exponent as a float)"
                    )
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
                    cast = _cast(call) if isinstance(call, cst.Call) else None
                    if cast is not None and isinstance(call, cst.Call):
                        # `float(self.n)`: the 0-d buffer in the dtype the number had
                        self.plan.casts[id(call)] = cast
                        cur = call
                        continue
                    if isinstance(call, cst.Call) and _torch_call(ctx, call):
                        param = _number_param(call, p)
                        if param is not None:
                            return (
                                f"it is the `{param}=` argument of `{ctx.code(call.func).strip()}`, "
                                "which takes a Python number, not a tensor"
                            )
                        cur = call  # a torch function of a tensor is a tensor
                        continue
                    fn = _math_call(call) if isinstance(call, cst.Call) else None
                    if fn is not None and isinstance(call, cst.Call):
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
        if id(call) in self.plan.clamps:
            return call  # the other argument's read came here first
        other = call.args[1] if call.args[0] is arg else call.args[0]
        if _mentions(other.value, self.attr) or _tensor(self.ctx, other.value):
            # both sides are tensors once the counter is a buffer (`min(s ** -0.5, s * w)`):
            # the elementwise `torch.minimum`/`torch.maximum` of the two 0-d values
            kind = "minimum" if f.value == "min" else "maximum"
            self.plan.clamps[id(call)] = (kind, arg.value, other.value)
            return call
        if not _number_like(self.ctx, other.value, self.attr):
            return f"`{f.value}` compares it with `{self.ctx.code(other.value).strip()[:40]}`"
        self.plan.clamps[id(call)] = ("min" if f.value == "max" else "max", arg.value, other.value)
        return call

    def _compare(self, cmp: cst.Comparison) -> str | None:
        ctx = self.ctx
        if len(cmp.comparisons) != 1 or not isinstance(cmp.comparisons[0].operator, _CMP):
            return f"it is compared in `{ctx.code(cmp).strip()[:40]}`"
        sides = (cmp.left, cmp.comparisons[0].comparator)
        if any(not _mentions(x, self.attr) and _tensor(ctx, x) for x in sides):
            # compared with a tensor: a tensor of bools with the Python number as with the
            # 0-d buffer (`torch.rand(n) < ratio`), elementwise either way
            return None
        for side in sides:
            if not _mentions(side, self.attr) and not _number_like(ctx, side, self.attr):
                return f"it is compared with `{ctx.code(side).strip()[:40]}`"
        return self._condition(cmp)

    def _condition(self, part: cst.BaseExpression) -> str | None:
        """``part`` (a comparison of the counter, or a value of it read for its truth) inside
        the condition of an ``if`` or a ternary, through ``and``/``or``/``not``: the
        condition splits into Python parts, kept a Python ``if``, and parts that become one
        boolean tensor (:func:`split_test`)."""
        ctx = self.ctx
        top: cst.BaseExpression = part
        while True:
            p = ctx.parent(top)
            if isinstance(p, cst.BooleanOperation) or (
                isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not)
            ):
                top = p
                continue
            break
        if isinstance(p, (cst.If, cst.IfExp)) and p.test is top:
            split = split_test(ctx, top, self.attr)
            if isinstance(split, str):
                return split
            if isinstance(p, cst.IfExp):
                if split[0]:
                    return (
                        f"the ternary's condition `{ctx.code(top).strip()[:40]}` also holds "
                        "Python values (a `torch.where` takes one boolean tensor)"
                    )
                self.plan.wheres.add(id(p))
                return self.climb(p)
            return self._if(p)
        cmp = ctx.code(part).strip()[:40]
        return (
            f"the comparison `{cmp}` decides Python control flow (a "
            "data-dependent branch as a tensor; as an int each counter value is a guard, a "
            "recompile per value)"
        )

    def _if(self, node: cst.If) -> str | None:
        ctx = self.ctx
        if id(node) in self.plan.ifs or id(node) in self.plan.lowered:
            return None
        if any(id(a) in self.plan.lowered for a in ctx.ancestors(node)):
            return None  # an `elif` or a nested `if` of a branch lowered already
        fn = ctx.function(node)
        if fn is None:
            return "the branch is not in a function"
        split = split_test(ctx, node.test, self.attr)
        if isinstance(split, str):
            return split
        if split[0] and node.orelse is not None:
            return (
                f"the condition `{ctx.code(node.test).strip()[:40]}` also holds Python values "
                "and the `if` has an `else` (the `else` runs when either part is false)"
            )
        branches = [node.body]
        if node.orelse is not None:
            if not isinstance(node.orelse, cst.Else):
                return self._lower(node)  # an `elif` chain: nested selections
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
                    return self._lower(node)  # calls: lowered statement by statement
                if any(
                    isinstance(n, cst.BinaryOperation)
                    and not isinstance(n.operator, ARITH_OPERATORS)
                    for n in all_nodes(value)
                ):
                    return self._lower(node)
        if node.orelse is None and not all(_bound_before(ctx, fn, node, t) for t in targets):
            return "a name the branch sets is not set before it"
        self.plan.ifs[id(node)] = node
        self.plan.reads.append(ctx.code(node.test).strip())
        tensors = {
            st.body[0].targets[0].target.value  # type: ignore[attr-defined, union-attr]
            for body in branches
            for st in body.body  # type: ignore[attr-defined]
            if _tensor(ctx, st.body[0].value)  # type: ignore[attr-defined, union-attr]
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
        added every ``policy_freq`` calls, a submodule joining after a warm-up, a report every
        ``k`` calls, an ``elif`` chain): lowered one statement at a time under ``cond = <the
        condition>`` (a 0-d bool tensor once the counter is a buffer), as :mod:`branchless`
        lowers a tensor ``if``; reports go under an eager-only guard, where they read the
        counter as ``int(self.<counter>)``; Python parts of the condition stay a Python
        ``if`` around the lowered statements."""
        from compilelint.fix.codemods.branchless import Lowering, reporting_call

        ctx, attr = self.ctx, self.attr
        if not isinstance(ctx.parent(node), cst.IndentedBlock):
            return "the branch is not inside a function body"
        split = split_test(ctx, node.test, attr)
        if isinstance(split, str):
            return split
        py, _ = split

        def tensor_test(e: cst.BaseExpression) -> cst.BaseExpression | None:
            got = split_test(ctx, e, attr)
            return None if isinstance(got, str) or got[0] else tensor_condition(ctx, got[1])

        low = Lowering(
            ctx,
            node,
            raw_test=node.test,
            tensor_test=tensor_test,
            tensor_part=lambda e: _mentions(e, attr) or ctx.is_tensor(e),
        )
        cond = ctx.fresh_name("cond")
        body = low.block(_suite(node.body), cst.Name(cond), 0, True)
        if isinstance(body, NoFix):
            return f"a branch has no branchless form ({body.reason})"
        test = tensor_condition(ctx, split[1])
        first = cst.Assign([cst.AssignTarget(cst.Name(cond))], test)
        stmts: list[cst.BaseStatement] = [cst.SimpleStatementLine([first]), *body]
        if node.orelse is not None:
            ncond = ctx.fresh_name("cond")
            rest = _suite(node.orelse.body) if isinstance(node.orelse, cst.Else) else [node.orelse]
            other = low.block(rest, cst.Name(ncond), 1, False)
            if isinstance(other, NoFix):
                return f"the `else` has no branchless form ({other.reason})"
            neg = cst.parse_expression(f"{ctx.torch('logical_not')}({cond})")
            stmts.append(
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(ncond))], neg)])
            )
            stmts.extend(other)
        if len(stmts) == 1 or (
            not low.values[0] and not low.values[1] and not any(_eager_block(s) for s in stmts)
        ):
            return "the branch assigns nothing"
        stmts = [s.visit(_IntReads(attr)) for s in stmts]  # type: ignore[misc]
        if py:
            stmts = [
                cst.If(
                    test=_conjunction(py),
                    body=cst.IndentedBlock(body=[s.with_changes(leading_lines=[]) for s in stmts]),
                )
            ]
        stmts[0] = stmts[0].with_changes(leading_lines=node.leading_lines)
        self.plan.lowered[id(node)] = stmts
        self.plan.sides[0].extend(low.values[0])
        self.plan.sides[1].extend(low.values[1])
        self.plan.reads.append(ctx.code(node.test).strip())
        # reads the lowering took care of: nested conditions, reports (eager, `int(...)`)
        for n in all_nodes(node):
            if isinstance(n, cst.If) and n is not node:
                self.plan.covered.update(id(a) for a in all_nodes(n.test) if self_attr(a) == attr)
            if isinstance(n, cst.SimpleStatementLine) and any(reporting_call(x) for x in n.body):
                self.plan.covered.update(id(a) for a in all_nodes(n) if self_attr(a) == attr)
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


# torch functions whose parameters (after the tensor input, by position and keyword) take
# Python numbers only: a 0-d tensor there raises or is read back with `.item()` by dynamo
_NUMBER_PARAMS: dict[str, tuple[str, ...]] = {
    "histc": ("input", "bins", "min", "max"),
    "topk": ("input", "k"),
    "kthvalue": ("input", "k"),
    "bincount": ("input", "weights", "minlength"),
    "multinomial": ("input", "num_samples"),
    "arange": ("start", "end", "step"),
    "zeros": ("size",),
    "ones": ("size",),
    "empty": ("size",),
    "full": ("size",),
    "randint": ("low", "high", "size"),
}
_TENSOR_PARAMS = frozenset({"input", "weights"})


def _number_param(call: cst.Call, arg: cst.Arg) -> str | None:
    """The name of the number-only parameter of ``torch.<f>`` that ``arg`` fills, else None."""
    f = call.func
    params = _NUMBER_PARAMS.get(f.attr.value) if isinstance(f, cst.Attribute) else None
    if params is None:
        return None
    if arg.keyword is not None:
        name = arg.keyword.value
    else:
        pos = [a for a in call.args if a.keyword is None]
        i = next((k for k, a in enumerate(pos) if a is arg), None)
        if i is None or arg.star or i >= len(params):
            return None
        name = params[i]
    return None if name in _TENSOR_PARAMS or name not in params else name


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


def split_test(
    ctx: FixContext, test: cst.BaseExpression, attr: str
) -> tuple[list[cst.BaseExpression], list[cst.BaseExpression]] | str:
    """The condition ``test`` of a branch on the counter as its ``and``-ed parts: (Python
    parts, kept a Python ``if``; parts that are boolean tensors once the counter is a buffer,
    each written as one: a comparison, ``e != 0`` for a value read for its truth,
    ``torch.logical_not``/``logical_and``/``logical_or`` for ``not``/``and``/``or`` of such
    parts), or why a part is neither (an ``or`` of a Python flag and the counter)."""
    py: list[cst.BaseExpression] = []
    tensors: list[cst.BaseExpression] = []
    for part in _conjuncts(test):
        if not _mentions(part, attr):
            (tensors if ctx.is_tensor(part) else py).append(part)
            continue
        t = _tensor_part(ctx, part, attr)
        if t is None:
            return (
                f"the condition `{ctx.code(part).strip()[:40]}` cannot be written as one "
                "boolean tensor (it mixes the counter with Python values under `or`/`not`, or "
                "chains comparisons)"
            )
        tensors.append(t)
    return py, tensors


def _conjuncts(e: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.And):
        return [*_conjuncts(e.left), *_conjuncts(e.right)]
    return [e]


def _tensor_part(ctx: FixContext, e: cst.BaseExpression, attr: str) -> cst.BaseExpression | None:
    bare = e.with_changes(lpar=[], rpar=[]) if e.lpar else e
    if isinstance(e, cst.Comparison):
        if len(e.comparisons) != 1 or not isinstance(e.comparisons[0].operator, _CMP):
            return None
        return bare
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        inner = _tensor_part(ctx, e.expression, attr)
        if inner is None:
            return None
        return cst.parse_expression(f"{ctx.torch('logical_not')}({_code(inner)})")
    if isinstance(e, cst.BooleanOperation):
        parts = []
        for side in (e.left, e.right):
            t = (
                _tensor_part(ctx, side, attr)
                if _mentions(side, attr)
                else (side if ctx.is_tensor(side) else None)
            )
            if t is None:
                return None
            parts.append(t)
        fn = "logical_and" if isinstance(e.operator, cst.And) else "logical_or"
        return cst.parse_expression(f"{ctx.torch(fn)}({_code(parts[0])}, {_code(parts[1])})")
    if self_attr(e) == attr or (
        isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS)
    ):
        return cst.parse_expression(f"({_code(bare)}) != 0")  # read for its truth
    return None


def tensor_condition(ctx: FixContext, parts: list[cst.BaseExpression]) -> cst.BaseExpression:
    out = parts[0]
    for p in parts[1:]:
        out = cst.parse_expression(f"{ctx.torch('logical_and')}({_code(out)}, {_code(p)})")
    return out.with_changes(lpar=[], rpar=[]) if out.lpar else out


def _conjunction(parts: list[cst.BaseExpression]) -> cst.BaseExpression:
    return cst.parse_expression(
        " and ".join(
            f"({_code(p)})" if isinstance(p, cst.BooleanOperation) else _code(p) for p in parts
        )
    )


def _code(e: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(e)


def _cast(call: cst.Call) -> str | None:
    """``float(x)`` / ``int(x)`` of one argument: the tensor method of the same type."""
    f = call.func
    if not (isinstance(f, cst.Name) and f.value in ("float", "int")):
        return None
    if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return None
    return "double" if f.value == "float" else "long"


def _eager_block(st: cst.CSTNode) -> bool:
    from compilelint.fix.codemods.base import not_compiling

    return isinstance(st, cst.If) and not_compiling(st.test)


class _IntReads(cst.CSTTransformer):
    """Inside the eager-only blocks of a lowering, the counter reads as ``int(...)`` (the
    Python number a report printed before)."""

    def __init__(self, attr: str) -> None:
        self.attr, self.depth = attr, 0
        self.stores: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if _eager_block(node):
            self.depth += 1

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if _eager_block(original):
            self.depth -= 1
        return updated

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.stores.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.stores.add(id(node.target))

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if self.depth and self_attr(original) == self.attr and id(original) not in self.stores:
            return cst.Call(func=cst.Name("int"), args=[cst.Arg(updated)])
        return updated


class _Apply(cst.CSTTransformer):
    """Writes the plan into the nodes it covers (by identity of the original nodes)."""

    def __init__(self, ctx: FixContext, plan: Plan, attr: str) -> None:
        self.ctx, self.plan, self.attr = ctx, plan, attr

    def _test(
        self, test: cst.BaseExpression
    ) -> tuple[list[cst.BaseExpression], cst.BaseExpression]:
        split = split_test(self.ctx, test, self.attr)
        assert not isinstance(split, str)  # the plan checked the original condition
        return split[0], tensor_condition(self.ctx, split[1])

    def _fn(self, name: str) -> cst.BaseExpression:
        return cst.parse_expression(self.ctx.torch(name))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        cast = self.plan.casts.get(id(original))
        if cast is not None:
            value = atom(updated.args[0].value)
            return cst.Call(func=cst.Attribute(value=value, attr=cst.Name(cast)))
        fn = self.plan.funcs.get(id(original))
        if fn is not None:
            return updated.with_changes(func=self._fn(fn))
        got = self.plan.clamps.get(id(original))
        if got is None:
            return updated
        kw, _, _ = got
        if kw in ("minimum", "maximum"):
            return cst.Call(
                func=self._fn(kw),
                args=[cst.Arg(a.value) for a in updated.args],
                lpar=updated.lpar,
                rpar=updated.rpar,
            )
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

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement:
        if id(original) not in self.plan.reports:
            return updated
        guard = cst.If(
            test=cst.parse_expression(f"not {self.ctx.torch('compiler.is_compiling')}()"),
            body=cst.IndentedBlock(body=[updated.with_changes(leading_lines=[])]),
            leading_lines=updated.leading_lines,
        )
        return guard.visit(_IntReads(self.attr))  # type: ignore[return-value]

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        if id(original) not in self.plan.wheres:
            return updated
        _, test = self._test(updated.test)
        return cst.Call(
            func=self._fn("where"),
            args=[_arg(test), _arg(updated.body), _arg(updated.orelse)],
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
        py, test = self._test(updated.test)
        yes = _values(updated.body)
        no = _values(updated.orelse.body) if isinstance(updated.orelse, cst.Else) else {}
        out: list[cst.BaseStatement] = []
        for i, name in enumerate(dict.fromkeys([*yes, *no])):
            a = yes.get(name, cst.Name(name))
            b = no.get(name, cst.Name(name))
            value = cst.Call(func=self._fn("where"), args=[_arg(test), _arg(a), _arg(b)])
            st = cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(name))], value)],
                leading_lines=updated.leading_lines if i == 0 and not py else (),
            )
            out.append(st)
        if py:
            return cst.If(
                test=_conjunction(py),
                body=cst.IndentedBlock(body=out),
                leading_lines=updated.leading_lines,
            )
        return cst.FlattenSentinel(out)


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=list(suite.body))]
    return list(suite.body)  # type: ignore[arg-type, attr-defined]


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
        | set(plan.casts)
        | plan.reports
    )
    if not marked:
        return []
    nodes = {id(n): n for n in all_nodes(cls) if id(n) in marked}
    tops = [n for i, n in nodes.items() if not any(id(a) in marked for a in ctx.ancestors(n))]
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for top in tops:
        new = top.visit(_Apply(ctx, plan, attr))
        changes.append((top, new))  # type: ignore[arg-type]
    return changes
