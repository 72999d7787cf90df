"""Statements under a tensor condition made branchless, one statement at a time.

A tensor condition that decides a Python ``if`` (or a loop's exit) holds one value: ``bool()``
of a tensor with more than one element raises in eager. So the branch is either taken as a
whole or not at all, and a body of any length composes from per-statement rewrites under a
guard ``g`` (a 0-dim boolean tensor evaluated once, before any statement changes a value):

- ``t = v`` / ``t += v`` / ``self.t = v`` / ``buf[i] = v``: ``t = torch.where(g, v, t)``. A name
  that holds no value before the construct takes ``v`` itself on its first assignment (eager
  code reads it afterwards only where the branch ran); later assignments select again.
- a report (print, logging, warnings) or a counter on ``self`` that only reports: kept at its
  place under ``if not torch.compiler.is_compiling():`` + ``if g:`` (eager reads the 0-dim
  tensor; the values it reads are the branch's values wherever ``g`` holds).
- ``if flag:`` on a Python value: kept, its bodies lowered under ``g``.
- ``if t:`` on a tensor: its bodies lowered under ``g & t`` and ``g & ~t``.
- an idempotent repair under the construct's own condition (``nan_to_num``, ``clamp``:
  ``always_apply``): applied always.

Anything else (an in-place call, a loop, ``return``/``break``, a new key or attribute) has no
branchless form: the lowering stops with the reason, naming the statement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import (
    atom,
    bound_names,
    last_name,
    name_nodes,
    names_in,
    not_compiling,
    side_effect,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix
from compilelint.static.analysis.walker import self_attr

Stmt = cst.BaseStatement

# an augmented assignment's operator -> the binary operator it applies (`x += d` is `x = x + d`)
AUG_OPS: dict[type, type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}
_REPORTERS = {
    "print",
    "warn",
    "debug",
    "info",
    "warning",
    "error",
    "exception",
    "critical",
    "log",
    # the libraries' own reporters, kept by code vendored from them: Lightning's and
    # torchmetrics' rank-zero helpers, transformers' `logger.warning_once`/`info_once`
    "rank_zero_warn",
    "rank_zero_info",
    "rank_zero_debug",
    "warning_once",
    "info_once",
    "warn_once",
}


def code(e: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(e).strip()


def _line(s: cst.BaseSmallStatement | cst.BaseCompoundStatement) -> Stmt:
    if isinstance(s, cst.BaseCompoundStatement):
        return s
    return cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])


def _assign(target: cst.BaseExpression, value: cst.BaseExpression) -> Stmt:
    # `target` is an assignment's target (a name, attribute, subscript) or a branch's
    return _line(
        cst.Assign(
            targets=[cst.AssignTarget(cast(cst.BaseAssignTargetExpression, target))], value=value
        )
    )


_RANDOM = {
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "bernoulli",
    "multinomial",
    "normal",
    "poisson",
    "dropout",
    "random",
    "uniform",
    "choice",
    "shuffle",
}


def _random_draw(e: cst.CSTNode) -> str | None:
    """The code of a call in ``e`` that draws from a random number generator, or None."""
    found: list[str] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            name = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", "")
            if name in _RANDOM or (name.endswith("_") and name[:-1] in _RANDOM):
                found.append(code(n))

    e.visit(V())
    return found[0] if found else None


def reporting_call(st: cst.CSTNode) -> bool:
    if not (isinstance(st, cst.Expr) and isinstance(st.value, cst.Call)):
        return False
    return last_name(st.value.func) in _REPORTERS


def _self_base(t: cst.BaseExpression) -> str | None:
    """``self.n`` / ``self.stats["k"]``: ``self.n`` / ``self.stats``."""
    while isinstance(t, cst.Subscript):
        t = t.value
    if self_attr(t) is not None:
        return code(t)
    return None


class Lowering:
    """Lower the statements of one construct (an ``if`` or a loop body) under guards.

    ``node``: the statement replaced (its line and place decide which names hold a value
    before it); ``need_select``: names whose every assignment must select even when they hold
    no value before (read after a loop that stops early: they must keep the value they had
    when it stopped); ``raw_test``: the construct's own condition (idempotent repairs under it
    are applied always); ``self_reads``: the class's code outside the construct, to tell
    whether a counter on ``self`` is only reported."""

    def __init__(
        self,
        ctx: FixContext,
        node: cst.CSTNode,
        *,
        need_select: set[str] | None = None,
        raw_test: cst.BaseExpression | None = None,
        always_apply: Callable[[cst.BaseExpression, str, cst.BaseExpression], bool] | None = None,
        tensor_test: Callable[[cst.BaseExpression], cst.BaseExpression | None] | None = None,
        tensor_part: Callable[[cst.BaseExpression], bool] | None = None,
    ) -> None:
        self.ctx = ctx
        self.node = node
        self.fn = ctx.function(node)
        self.need_select = need_select or set()
        self.raw_test = raw_test
        self.always_apply = always_apply
        self.tensor_test = tensor_test
        self.tensor_part = tensor_part or (lambda e: ctx.is_tensor(e))
        self.assigned: set[str] = set()  # names (or target code) that hold a value by now
        self.changed: set[str] = set()  # names this lowering changed (their type may differ)
        self.values: tuple[list[cst.BaseExpression], list[cst.BaseExpression]] = ([], [])
        self.eager_counters: list[str] = []
        self.applied_always = False
        self.tensors: set[str] = set()  # names known to hold a tensor by now
        self.temps: dict[str, str] = {}  # name -> the guard it was first assigned under
        self.line = ctx.span(node)[0]
        self._held: dict[str, bool] = {}

    # -------------------------------------------------------------- names
    def holds_before(self, n: str) -> bool | None:
        """True: ``n`` holds a value before the construct; False: it holds none; None: it is
        carried by an enclosing loop without a value before that loop (no safe choice)."""
        if n in self._held:
            return self._held[n]
        fn = self.fn
        out: bool | None = False
        if fn is not None:
            ps = fn.params
            params = {p.name.value for p in [*ps.params, *ps.kwonly_params, *ps.posonly_params]}
            for star in (ps.star_arg, ps.star_kwarg):
                if isinstance(star, cst.Param):
                    params.add(star.name.value)
            binds = bound_names(fn.body).get(n, [])
            if n in params or any(self.ctx.span(b)[0] < self.line for b in binds):
                out = True
            else:
                for a in self.ctx.ancestors(self.node):
                    if a is fn:
                        break
                    if isinstance(a, (cst.For, cst.While)) and any(
                        any(x is a for x in self.ctx.ancestors(b))
                        and not any(x is self.node for x in self.ctx.ancestors(b))
                        and b is not self.node
                        for b in binds
                    ):
                        out = None  # carried around the loop, set after the construct
                        break
        self._held[n] = out  # type: ignore[assignment]
        return out

    def _tensorish(self, e: cst.BaseExpression) -> bool:
        return self.ctx.is_tensor(e)

    # -------------------------------------------------------------- statements
    def block(
        self,
        stmts: Sequence[Stmt],
        guard: cst.BaseExpression,
        side: int,
        top: bool,
    ) -> list[Stmt] | NoFix:
        out: list[Stmt] = []
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for s in st.body:
                    r = self.small(s, guard, side, top)
                    if isinstance(r, NoFix):
                        return r
                    out.extend(r)
            elif isinstance(st, cst.If):
                r = self.nested_if(st, guard, side)
                if isinstance(r, NoFix):
                    return r
                out.extend(r)
            else:
                kind = type(st).__name__.lower()
                return NoFix(
                    f"a `{kind}` statement in the branch has no branchless form "
                    "(statements under a tensor condition become `torch.where` selections)"
                )
        out = _merge_eager(out)
        if out:
            out[0] = out[0].with_changes(leading_lines=[])
        return out

    def _eager(self, guard: cst.BaseExpression, body: list[Stmt]) -> Stmt:
        inner = cst.If(test=guard, body=cst.IndentedBlock(body=body))
        return cst.If(
            test=cst.parse_expression(f"not {self.ctx.torch('compiler.is_compiling')}()"),
            body=cst.IndentedBlock(body=[inner]),
        )

    def _only_reported(self, attr: str) -> bool:
        """``self.n`` read in its class only by reports, its own updates and ``__init__``."""
        klass = self.ctx.enclosing(self.node, cst.ClassDef)
        if klass is None:
            return False

        found: list[bool] = []
        ctx = self.ctx

        class V(cst.CSTVisitor):
            def visit_Attribute(self, n: cst.Attribute) -> bool:
                if code(n) != attr:
                    return True
                fn = ctx.function(n)
                if fn is not None and fn.name.value == "__init__":
                    return False
                stmt: cst.CSTNode | None = n
                while stmt is not None and not isinstance(stmt, cst.BaseSmallStatement):
                    stmt = ctx.parent(stmt)
                if stmt is None:
                    found.append(False)
                elif reporting_call(stmt):
                    pass
                elif isinstance(stmt, cst.AugAssign) and _self_base(stmt.target) == attr:
                    pass
                elif isinstance(stmt, cst.Assign) and any(
                    _self_base(t.target) == attr for t in stmt.targets
                ):
                    if attr in code(stmt.value):
                        pass
                    else:
                        found.append(False)
                else:
                    found.append(False)
                return False

        klass.visit(V())
        return not found

    def small(
        self, s: cst.BaseSmallStatement, guard: cst.BaseExpression, side: int, top: bool
    ) -> list[Stmt] | NoFix:
        if isinstance(s, cst.Pass):
            return []
        if reporting_call(s):
            return [self._eager(guard, [_line(s)])]
        if isinstance(s, (cst.Assign, cst.AugAssign)):
            return self.assign(s, guard, side, top)
        if isinstance(s, cst.AnnAssign) and s.value is not None:
            return self.assign(
                cst.Assign(targets=[cst.AssignTarget(s.target)], value=s.value), guard, side, top
            )
        what = code(s)
        if isinstance(s, (cst.Return, cst.Break, cst.Continue, cst.Raise)):
            return NoFix(f"`{what}` in the branch leaves it: no branchless form")
        return NoFix(
            f"`{what}` has no branchless form: an effect `torch.where` cannot select "
            "(write the result to a name instead, e.g. `x = x.clamp(...)` for `x.clamp_(...)`)"
        )

    def assign(
        self, s: cst.Assign | cst.AugAssign, guard: cst.BaseExpression, side: int, top: bool
    ) -> list[Stmt] | NoFix:
        eff = side_effect(s.value)
        if eff is not None:
            return NoFix(f"`{code(eff)}` has a side effect; torch.where computes both sides")
        draw = _random_draw(s.value)
        if draw is not None:
            return NoFix(
                f"`{draw}` draws random numbers: computing it where eager does not would "
                "change every later draw"
            )
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        pre: list[Stmt] = []
        if isinstance(s, cst.AugAssign):
            op = AUG_OPS.get(type(s.operator))
            if op is None:
                return NoFix(f"`{code(s)}` is a bitwise augmented assignment")
            pairs.append(
                (s.target, cst.BinaryOperation(left=s.target, operator=op(), right=atom(s.value)))
            )
        else:
            for at in s.targets:
                t = at.target
                if isinstance(t, (cst.Tuple, cst.List)):
                    els = [e.value for e in t.elements]
                    if any(isinstance(e, cst.StarredElement) for e in t.elements):
                        return NoFix(f"`{code(s)}` unpacks with a star")
                    v = s.value
                    if (
                        isinstance(v, (cst.Tuple, cst.List))
                        and len(v.elements) == len(els)
                        and not any(isinstance(e, cst.StarredElement) for e in v.elements)
                        and not (names_in(v) & {code(e) for e in els})
                    ):
                        pairs.extend(zip(els, [e.value for e in v.elements]))
                    else:
                        tmp = self.ctx.fresh_name("unpacked")
                        pre.append(_assign(cst.Name(tmp), s.value))
                        for i, e in enumerate(els):
                            pairs.append(
                                (
                                    e,
                                    cst.Subscript(
                                        value=cst.Name(tmp),
                                        slice=[
                                            cst.SubscriptElement(cst.Index(cst.Integer(str(i))))
                                        ],
                                    ),
                                )
                            )
                else:
                    pairs.append((t, s.value))
        out: list[Stmt] = list(pre)
        for tgt, val in pairs:
            r = self.select(tgt, val, guard, side, top, s)
            if isinstance(r, NoFix):
                return r
            out.extend(r)
        return out

    def select(
        self,
        t: cst.BaseExpression,
        v: cst.BaseExpression,
        guard: cst.BaseExpression,
        side: int,
        top: bool,
        stmt: cst.CSTNode,
    ) -> list[Stmt] | NoFix:
        ctx = self.ctx
        where = cst.parse_expression(ctx.torch("where"))
        self.values[side].append(v)
        if isinstance(t, cst.Name):
            n = t.value
            if self.temps.get(n) == code(guard):
                return [_assign(t, v)]  # a temporary of this guard's statements: recomputed
            held = n in self.assigned or self.holds_before(n)
            if held is None:
                return NoFix(
                    f"`{n}` is carried around the loop without a value before it: "
                    "a selection would read it unset on the first iteration"
                )
            if not held and n not in self.need_select:
                self.temps[n] = code(guard)
                if self._tensorish(v):
                    self.tensors.add(n)
                self.assigned.add(n)
                self.changed.add(n)
                return [_assign(t, v)]
            if not held:
                return NoFix(f"`{n}` is read after the loop but holds no value before it")
            if (
                top
                and n not in self.changed
                and self.raw_test is not None
                and self.always_apply is not None
                and self.always_apply(self.raw_test, n, v)
            ):
                self.changed.add(n)
                self.tensors.add(n)
                self.applied_always = True
                return [_assign(t, v)]
            if not (self._tensorish(v) or self._tensorish(t) or n in self.tensors):
                return NoFix(
                    f"`{n}` holds a Python value: `torch.where` would make it a tensor "
                    f"(neither `{code(v)}` nor `{n}` is known to be a tensor)"
                )
            self.changed.add(n)
            self.assigned.add(n)
            self.tensors.add(n)
            return [_assign(t, cst.Call(func=where, args=[cst.Arg(guard), cst.Arg(v), cst.Arg(t)]))]
        if isinstance(t, (cst.Attribute, cst.Subscript)):
            eff = side_effect(t)
            if eff is not None:
                return NoFix(f"`{code(t)}` has a side effect")
            base = t.value
            attr = _self_base(t)
            tensor = self._tensorish(t) or self._tensorish(v)
            if isinstance(t, cst.Subscript) and any(
                isinstance(el.slice, cst.Index) and self._tensorish(el.slice.value)
                for el in t.slice
            ):
                return NoFix(
                    f"`{code(t)}` indexes with a tensor (a mask or indices): the selection "
                    "would read a data-dependent set of elements"
                )
            if isinstance(t, cst.Subscript) and self._tensorish(base):
                tensor = True  # a write into a tensor: select per element, the old is there
            elif not self._set_before(t):
                return NoFix(
                    f"`{code(t)}` may hold no value before the branch (a new key or "
                    "attribute): writing it always would add it where eager does not"
                )
            if not tensor:
                if attr is not None and self._only_reported(attr):
                    self.eager_counters.append(attr)
                    return [self._eager(guard, [_line(stmt)])]  # type: ignore[arg-type]
                return NoFix(
                    f"`{code(t)}` holds a Python value the model reads: `torch.where` would "
                    "make it a tensor (a counter read only by logs moves under an eager-only "
                    "guard; otherwise make it a tensor buffer)"
                )
            del base
            self.assigned.add(code(t))
            return [_assign(t, cst.Call(func=where, args=[cst.Arg(guard), cst.Arg(v), cst.Arg(t)]))]
        return NoFix(f"`{code(t)}` is not a name, an attribute or a subscript")

    def _set_before(self, t: cst.BaseExpression) -> bool:
        from compilelint.fix.codemods.cl101_tensor_dependent_branch import _set_before

        if code(t) in self.assigned:
            return True
        return _set_before(self.ctx, self.node, t)  # type: ignore[arg-type]

    def nested_if(self, st: cst.If, guard: cst.BaseExpression, side: int) -> list[Stmt] | NoFix:
        ctx = self.ctx
        eff = side_effect(st.test)
        if eff is not None:
            return NoFix(f"`{code(eff)}` in a nested condition has a side effect")
        if not_compiling(st.test) and st.orelse is None:
            return [self._eager(guard, list(st.body.body))]  # type: ignore[arg-type, attr-defined]
        if not isinstance(st.body, cst.IndentedBlock):
            body_stmts: list[Stmt] = [
                cst.SimpleStatementLine(body=list(cast(cst.SimpleStatementSuite, st.body).body))
            ]
        else:
            body_stmts = list(st.body.body)
        orelse = st.orelse
        if isinstance(orelse, cst.If):
            else_stmts: list[Stmt] = [orelse]
        elif orelse is not None:
            else_stmts = list(orelse.body.body)  # type: ignore[arg-type, attr-defined]
        else:
            else_stmts = []
        if not self.tensor_part(st.test):
            if names_in(st.test) & self.changed:
                return NoFix(
                    f"the nested condition `{code(st.test)}` reads a value the branch changed"
                )
            body = self.block(body_stmts, guard, side, False)
            if isinstance(body, NoFix):
                return body
            new_else: cst.Else | None = None
            if else_stmts:
                eb = self.block(else_stmts, guard, side, False)
                if isinstance(eb, NoFix):
                    return eb
                if eb:
                    new_else = cst.Else(body=cst.IndentedBlock(body=eb))
            if not body:
                body = [cst.SimpleStatementLine(body=[cst.Pass()])]
            return [cst.If(test=st.test, body=cst.IndentedBlock(body=body), orelse=new_else)]
        test = self.tensor_test(st.test) if self.tensor_test is not None else None
        if test is None:
            return NoFix(
                f"the nested condition `{code(st.test)}` mixes Python values and tensors or is "
                "not one boolean tensor"
            )
        c = ctx.fresh_name("cond")
        g1 = ctx.fresh_name("cond")
        out: list[Stmt] = [
            _assign(cst.Name(c), test),
            _assign(
                cst.Name(g1),
                cst.parse_expression(f"{ctx.torch('logical_and')}({code(guard)}, {c})"),
            ),
        ]
        body = self.block(body_stmts, cst.Name(g1), side, False)
        if isinstance(body, NoFix):
            return body
        out.extend(body)
        if else_stmts:
            g2 = ctx.fresh_name("cond")
            out.append(
                _assign(
                    cst.Name(g2),
                    cst.parse_expression(
                        f"{ctx.torch('logical_and')}({code(guard)}, "
                        f"{ctx.torch('logical_not')}({c}))"
                    ),
                )
            )
            eb = self.block(else_stmts, cst.Name(g2), side, False)
            if isinstance(eb, NoFix):
                return eb
            out.extend(eb)
        return out


def _eager_parts(st: Stmt) -> tuple[str, list[Stmt]] | None:
    """``if not torch.compiler.is_compiling(): if g: <body>``: (code of ``g``, body)."""
    if not (isinstance(st, cst.If) and not_compiling(st.test) and st.orelse is None):
        return None
    inner = st.body.body
    if len(inner) != 1 or not isinstance(inner[0], cst.If) or inner[0].orelse is not None:
        return None
    return code(inner[0].test), list(cast(cst.IndentedBlock, inner[0].body).body)


def _merge_eager(stmts: list[Stmt]) -> list[Stmt]:
    """Adjacent eager-only blocks on the same guard become one."""
    out: list[Stmt] = []
    for st in stmts:
        cur, prev = _eager_parts(st), _eager_parts(out[-1]) if out else None
        if cur is not None and prev is not None and cur[0] == prev[0]:
            last = out[-1]
            inner = last.body.body[0]  # type: ignore[attr-defined]
            inner = inner.with_changes(body=inner.body.with_changes(body=[*prev[1], *cur[1]]))
            out[-1] = last.with_changes(body=last.body.with_changes(body=[inner]))  # type: ignore[attr-defined]
            continue
        out.append(st)
    return out


def reads_after(ctx: FixContext, node: cst.CSTNode, names: set[str]) -> set[str]:
    """Which of ``names`` the function reads after ``node`` (by line)."""
    fn = ctx.function(node)
    if fn is None:
        return set(names)
    end = ctx.span(node)[2]
    out: set[str] = set()
    for n in names:
        for r in name_nodes(fn.body, n, reads_only=True):
            if ctx.span(r)[0] > end and not any(a is node for a in ctx.ancestors(r)):
                out.add(n)
                break
    return out
