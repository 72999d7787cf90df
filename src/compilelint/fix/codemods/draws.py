"""Python ``random`` draws in forward, kept on Python's own generator (CL205).

dynamo traces ``random.uniform``/``randint``/``randrange`` (and ``random.random`` through
nothing: it is a C method dynamo skips, GB0007): it calls them itself before the graph runs, in
trace order, on Python's generator, and passes the numbers in as graph inputs. Two things still
break: ``random.random()`` itself, and Python arithmetic or a Python ``if`` on a drawn number
(GB0213 "unimplemented builtin op", data-dependent branching). So:

- ``random.random()``                 -> ``random.uniform(0.0, 1.0)``: the same number, bit for
  bit (``uniform(a, b)`` is ``a + (b - a) * random()``), from the same generator state
- a draw read by arithmetic that meets a tensor -> ``torch.as_tensor(<draw>, dtype=torch.float64)``
  (``int64`` for ``randint``/``randrange``): a 0-d tensor computes what the Python number did
  (a 0-d operand does not change the other tensor's dtype)
- ``if [flags and] <draw> < p:`` around assignments (an ``else`` of assignments too)
                                       -> ``if flags:`` + one ``keep = <draw> < p`` + each
  assigned name chosen with ``torch.where(keep, new, old)``; names bound only inside the branch
  are computed unconditionally

Why the outputs can still be compared: draws inside the lowered branch are made on every call
(unconditionally) and discarded when the branch is not taken, so the generator is advanced by
more than before; but they come after the deciding draw. With Python's generator reseeded before
each call (the dynamic runner does, with the same seed for the original and the fixed copy), the
numbers the original uses are a prefix of the numbers the rewrite draws, in the same order, so
each call's outputs must be equal exactly; and as the draws are independent, discarding some
leaves the distribution of every call's outputs, and their joint distribution, unchanged. Draws
placed after the branch would shift: then the verifier sees different outputs and rejects it.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import name_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

# Python draws dynamo turns into graph inputs (random.random is not one: rewritten to uniform)
_FLOAT = frozenset({"random", "uniform"})
_INT = frozenset({"randint", "randrange"})
_CMP = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)


def draw_kind(call: cst.CSTNode) -> str | None:
    """``"float"``/``"int"`` for ``random.<draw>(...)`` calls dynamo can feed, else None."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == "random"
    ):
        return None
    name = call.func.attr.value
    if name == "random" and call.args:
        return None
    if name in _FLOAT:
        return "float"
    if name in _INT:
        return "int"
    return None


def _draws(node: cst.CSTNode) -> list[cst.Call]:
    out: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            if draw_kind(n) is not None:
                out.append(n)

    node.visit(V())
    return out


def _imports_random_module(module: cst.Module) -> bool:
    for st in module.body:
        if isinstance(st, cst.SimpleStatementLine):
            for s in st.body:
                if isinstance(s, cst.Import) and any(
                    isinstance(a.name, cst.Name) and a.name.value == "random" and a.asname is None
                    for a in s.names
                ):
                    return True
    return False


def _python_draw(ctx: FixContext, call: cst.Call) -> cst.BaseExpression:
    """``random.random()`` -> ``random.uniform(0.0, 1.0)``; other draws as written."""
    if call.func.attr.value == "random":  # type: ignore[attr-defined]
        return cst.parse_expression("random.uniform(0.0, 1.0)")
    return call.with_changes(lpar=[], rpar=[])


def _tensor_draw(ctx: FixContext, call: cst.Call) -> cst.BaseExpression:
    dtype = "float64" if draw_kind(call) == "float" else "int64"
    th = ctx.torch()
    return cst.Call(
        func=cst.parse_expression(f"{th}.as_tensor"),
        args=[
            cst.Arg(
                _python_draw(ctx, call),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
            ),
            cst.Arg(
                cst.parse_expression(f"{th}.{dtype}"),
                keyword=cst.Name("dtype"),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            ),
        ],
        lpar=call.lpar,
        rpar=call.rpar,
    )


_ARITH = (cst.BinaryOperation, cst.UnaryOperation)


def _other_operands(parent: cst.CSTNode, child: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(parent, cst.BinaryOperation):
        return [parent.right if parent.left is child else parent.left]
    return []


class _Uses:
    """Whether a drawn number may become a 0-d tensor: every use, followed through local
    names, ends in arithmetic with a tensor (or a torch call, or the test of the ``if`` being
    lowered). ``why``: the first use that does not."""

    def __init__(self, ctx: FixContext, fn: cst.FunctionDef, lowered: cst.If | None) -> None:
        self.ctx, self.fn, self.lowered = ctx, fn, lowered
        self.why = ""
        self._seen: set[str] = set()

    def ok(self, node: cst.BaseExpression) -> bool:
        ctx = self.ctx
        child: cst.CSTNode = node
        while True:
            p = ctx.parent(child)
            if p is None:
                self.why = "the draw is not in a function body"
                return False
            if isinstance(p, _ARITH):
                if any(ctx.is_tensor(o) for o in _other_operands(p, child)):
                    return True
                child = p
                continue
            if isinstance(p, (cst.Comparison, cst.ComparisonTarget)):
                child = p
                continue
            if isinstance(p, cst.Arg):
                call = ctx.parent(p)
                if isinstance(call, cst.Call) and ctx.code(call.func).split(".")[0] in (
                    ctx.torch(),
                    "F",
                ):
                    return True
                self.why = f"the drawn number is an argument of `{ctx.code(call or p)[:50]}`"
                return False
            if isinstance(p, cst.If) and p.test is child:
                if self.lowered is not None and p is self.lowered:
                    return True
                self.why = "the drawn number decides an `if` that is not lowered"
                return False
            if isinstance(p, cst.BooleanOperation) and self.lowered is not None:
                top = p
                while isinstance(ctx.parent(top), cst.BooleanOperation):
                    top = ctx.parent(top)  # type: ignore[assignment]
                if ctx.parent(top) is self.lowered and top.right is child:  # type: ignore[union-attr]
                    return True
            if isinstance(p, cst.Assign) and p.value is child:
                if len(p.targets) == 1 and isinstance(p.targets[0].target, cst.Name):
                    return self._name(p.targets[0].target.value, p)
                self.why = f"the drawn number is stored in `{ctx.code(p.targets[0].target)}`"
                return False
            self.why = f"the drawn number is used in `{ctx.code(p).strip()[:50]}`"
            return False

    def _name(self, name: str, at: cst.Assign) -> bool:
        if name in self._seen:
            return True
        self._seen.add(name)
        reads = name_nodes(self.fn.body, name, reads_only=True)
        if not reads:
            self.why = f"`{name}` is not read"
            return False
        return all(self.ok(r) for r in reads)


def simple_assigns(block: cst.BaseSuite) -> list[cst.Assign] | None:
    """The statements of an indented block when each is one ``name = value``; else None."""
    if not isinstance(block, cst.IndentedBlock):
        return None
    out: list[cst.Assign] = []
    for st in block.body:
        if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
            return None
        a = st.body[0]
        if not (
            isinstance(a, cst.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
        ):
            return None
        out.append(a)
    return out


def _bound_before(ctx: FixContext, fn: cst.FunctionDef, stmt: cst.If, name: str) -> bool:
    """``name`` is a parameter, or assigned by a statement of ``fn``'s body before ``stmt``."""
    params = fn.params
    every = [*params.params, *params.posonly_params, *params.kwonly_params]
    if any(p.name.value == name for p in every):
        return True
    start = ctx.span(stmt)[0]
    for n in name_nodes(fn.body, name):
        if ctx.span(n)[0] < start and any(
            isinstance(a, cst.AssignTarget) and a.target is n for a in [ctx.parent(n)]
        ):
            return True
    return False


def _read_outside(ctx: FixContext, fn: cst.FunctionDef, stmt: cst.If, name: str) -> bool:
    lo, _, hi, _ = ctx.span(stmt)
    return any(not (lo <= ctx.span(n)[0] <= hi) for n in name_nodes(fn.body, name, reads_only=True))


def _lower_if(
    ctx: FixContext, fn: cst.FunctionDef, stmt: cst.If
) -> tuple[cst.BaseStatement | cst.FlattenSentinel, list[cst.Call]] | str:
    """The lowered ``if`` and the draws of its test, or why it is not lowered."""
    test = stmt.test
    flags: cst.BaseExpression | None = None
    cmp = test
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        flags, cmp = test.left, test.right
        if _draws(flags):
            return "the draw is not the last operand of the `and`"
    drawn = _draws(cmp)
    if not (
        drawn
        and isinstance(cmp, cst.Comparison)
        and all(isinstance(c.operator, _CMP) for c in cmp.comparisons)
    ):
        return "the `if` test is not a comparison of the draw"
    if isinstance(stmt.orelse, cst.If):
        return "the `if` has an `elif`"
    body = simple_assigns(stmt.body)
    other = simple_assigns(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else) else []
    if body is None or other is None:
        return "a branch holds more than assignments to names"
    th = ctx.torch()
    keep = ctx.fresh_name("keep")
    new_cmp: cst.BaseExpression = cmp
    for d in drawn:
        new_cmp = cast(cst.BaseExpression, new_cmp.deep_replace(d, _tensor_draw(ctx, d)))
    lines: list[cst.BaseStatement] = [
        cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(keep))], value=new_cmp)]
        )
    ]
    names_b = [a.targets[0].target.value for a in body]  # type: ignore[attr-defined]
    names_e = [a.targets[0].target.value for a in other]  # type: ignore[attr-defined]
    both = set(names_b) & set(names_e)
    joined: dict[str, list[cst.BaseExpression]] = {}

    def where(cond: str, a: cst.BaseExpression, b: cst.BaseExpression) -> cst.Call:
        return cst.Call(
            func=cst.parse_expression(f"{th}.where"),
            args=[
                cst.Arg(
                    cst.Name(cond), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                ),
                cst.Arg(a, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(b),
            ],
        )

    for side, assigns, names in ((0, body, names_b), (1, other, names_e)):
        for a in assigns:
            n = a.targets[0].target.value  # type: ignore[attr-defined]
            before = _bound_before(ctx, fn, stmt, n)
            if n in both and not before:
                if names.count(n) != 1:
                    return f"`{n}` is assigned twice in a branch"
                if any(name_nodes(x.value, n) for x in body + other):
                    return f"`{n}` is read inside the branches"
                joined.setdefault(n, [cst.Name(n), cst.Name(n)])[side] = a.value
                continue
            new_v: cst.BaseExpression
            if before:
                new_v = (
                    where(keep, a.value, cst.Name(n))
                    if side == 0
                    else where(keep, cst.Name(n), a.value)
                )
            else:
                if _read_outside(ctx, fn, stmt, n):
                    return f"`{n}` is bound only in one branch and read after it"
                new_v = a.value
            lines.append(
                cst.SimpleStatementLine(
                    body=[cst.Assign(targets=a.targets, value=new_v)]  # type: ignore[arg-type]
                )
            )
    for n, (vb, ve) in joined.items():
        lines.append(
            cst.SimpleStatementLine(
                body=[
                    cst.Assign(targets=[cst.AssignTarget(cst.Name(n))], value=where(keep, vb, ve))
                ]
            )
        )
    if flags is not None:
        new: cst.BaseStatement | cst.FlattenSentinel = stmt.with_changes(
            test=flags, body=cst.IndentedBlock(body=lines), orelse=None
        )
    else:
        new = cst.FlattenSentinel(
            [lines[0].with_changes(leading_lines=stmt.leading_lines), *lines[1:]]
        )
    return new, drawn


def python_draws(ctx: FixContext, seed: cst.BaseStatement, draw: cst.Call | None) -> Rewrite | str:
    """The rewrite of the Python draws of ``seed``'s function (the ``if`` at ``seed`` lowered
    when its test holds a draw), or why there is none."""
    fn = ctx.function(seed)
    if fn is None:
        return "the draw is not in a function body"
    if not _imports_random_module(ctx.module):
        return "`random` is not the imported standard-library module"
    lowered = seed if isinstance(seed, cst.If) and _draws(seed.test) else None
    changes: list[tuple[cst.CSTNode, object]] = []
    test_draws: list[cst.Call] = []
    if lowered is not None:
        got = _lower_if(ctx, fn, lowered)
        if isinstance(got, str):
            return got
        new_if, test_draws = got
    uses = _Uses(ctx, fn, lowered)
    wrapped: dict[int, cst.BaseExpression] = {}
    skipped: list[str] = []
    for d in _draws(fn.body):
        if any(d is t for t in test_draws):
            continue
        if uses.ok(d):
            wrapped[id(d)] = _tensor_draw(ctx, d)
        elif d.func.attr.value == "random":  # type: ignore[attr-defined]
            wrapped[id(d)] = _python_draw(ctx, d)  # still the same number, and traceable
            skipped.append(uses.why)
        else:
            skipped.append(uses.why)
    if (
        draw is not None
        and not any(draw is t for t in test_draws)
        and draw_kind(wrapped.get(id(draw), draw)) is not None  # not made a tensor
    ):
        return skipped[0] if skipped else "the draw is not rewritten"
    if lowered is not None:
        # the draws inside the lowered branch: mapped on the original nodes before lowering
        new_if = _rebuild(lowered, new_if, wrapped)
        changes.append((lowered, new_if))
        for d in _draws(fn.body):
            if id(d) in wrapped and not _inside(ctx, d, lowered):
                changes.append((d, wrapped[id(d)]))
    else:
        changes.extend((d, wrapped[id(d)]) for d in _draws(fn.body) if id(d) in wrapped)
    if not changes:
        return "no draw to rewrite"
    return Rewrite(
        title=(
            "keep Python's `random` draws traceable: `random.random()` -> "
            "`random.uniform(0.0, 1.0)` (the same number), drawn numbers as 0-d float64 tensors"
            + (", the `if` on the draw chosen with `torch.where`" if lowered is not None else "")
            + ": dynamo draws them itself on Python's generator; draws inside the branch are "
            "made on every call and discarded when it is not taken (the same distribution; "
            "equal outputs when Python's generator is reseeded per call)"
        ),
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )


def _inside(ctx: FixContext, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return any(a is outer for a in ctx.ancestors(node))


def _rebuild(
    original: cst.If,
    new: cst.BaseStatement | cst.FlattenSentinel,
    wrapped: dict[int, cst.BaseExpression],
) -> cst.BaseStatement | cst.FlattenSentinel:
    """``new`` (built from ``original``'s nodes) with the draws of ``wrapped`` replaced (the
    lowered statements reuse the original expression nodes, so identity still holds)."""

    class T(cst.CSTTransformer):
        def on_leave(self, orig: cst.CSTNode, upd: cst.CSTNode):  # type: ignore[no-untyped-def]
            got = wrapped.get(id(orig))
            return got if got is not None else upd

    if isinstance(new, cst.FlattenSentinel):
        return cst.FlattenSentinel([n.visit(T()) for n in new.nodes])  # type: ignore[misc]
    return new.visit(T())  # type: ignore[return-value]
