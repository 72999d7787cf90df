"""Code that only observes runs only in eager.

Shared by the codemods whose statement does not feed the model's outputs: a timer
(``t0 = time.perf_counter()`` ... ``self.elapsed = time.perf_counter() - t0``), a list on
``self`` that logs per-call values (``self.history.append(x.mean().tolist())``), a file write
or a lock around reporting code. The statement, and every statement that reads what it binds
(its local names, the ``self.<attr>`` it sets or appends to, in the same function), go under
``if not torch.compiler.is_compiling():`` as a group, as long as nothing the group binds reaches
code outside it (a ``return``, a tensor computation kept by the model, a loop or branch that
does more). Eager runs behave as before; compiled runs skip the group instead of breaking the
graph, so a caller reading the log or the timer after a compiled call sees it unchanged.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    bound_names,
    leading_lines,
    name_nodes,
    not_compiling,
    side_effect,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.static.analysis.walker import self_attr

_FLOW = (cst.Return, cst.Yield, cst.Raise, cst.Break, cst.Continue, cst.Await)


def eager_only(ctx: FixContext, node: cst.CSTNode) -> bool:
    """Whether ``node`` is inside the body of ``if not torch.compiler.is_compiling():``."""
    child: cst.CSTNode = node
    for a in ctx.ancestors(node):
        if isinstance(a, cst.If) and a.body is child and not_compiling(a.test):
            return True
        if isinstance(a, cst.FunctionDef):
            return False
        child = a
    return False


def _attrs_touched(st: cst.CSTNode) -> set[str]:
    """``self.X`` that ``st`` assigns, augments, or calls a method of (``self.X.append``)."""
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            a = self_attr(n.target)
            if a:
                out.add(a)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            a = self_attr(n.target)
            if a:
                out.add(a)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            a = self_attr(n.target)
            if a:
                out.add(a)

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute):
                a = self_attr(f.value)
                if a:
                    out.add(a)

    st.visit(V())
    return out


def _attr_reads(node: cst.CSTNode, attr: str) -> list[cst.Attribute]:
    out: list[cst.Attribute] = []

    class V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> None:
            if self_attr(n) == attr:
                out.append(n)

    node.visit(V())
    return out


def _flows(st: cst.CSTNode) -> cst.CSTNode | None:
    found: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, _FLOW):
                found.append(n)
            return not isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    st.visit(V())
    return found[0] if found else None


def _statement(ctx: FixContext, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The statement directly in a function's block that holds ``node`` (innermost block)."""
    for a in [node, *ctx.ancestors(node)]:
        if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and isinstance(
            ctx.parent(a), cst.IndentedBlock
        ):
            return a  # type: ignore[return-value]
    return None


def _inside(ctx: FixContext, node: cst.CSTNode, group: list[cst.BaseStatement]) -> bool:
    ids = {id(g) for g in group}
    return id(node) in ids or any(id(a) in ids for a in ctx.ancestors(node))


def guard_group(
    ctx: FixContext, seed: cst.BaseStatement, what: str
) -> list[cst.BaseStatement] | NoFix:
    """``seed`` and the statements that read what it binds, in source order, or why not."""
    fn = ctx.function(seed)
    if fn is None or not isinstance(ctx.parent(seed), cst.IndentedBlock):
        return NoFix(f"the {what} is not a statement of a function body")
    group: list[cst.BaseStatement] = [seed]
    done_names: set[str] = set()
    done_attrs: set[str] = set()
    params = {p.name.value for p in fn.params.params}
    changed = True
    while changed:
        changed = False
        names: set[str] = set()
        attrs: set[str] = set()
        for st in group:
            names |= set(bound_names(st))
            changes = _mutated_names(st)
            if changes & params:
                n = sorted(changes & params)[0]
                return NoFix(f"the {what} changes the argument `{n}` in place")
            names |= changes
            attrs |= _attrs_touched(st)
            flow = _flows(st)
            if flow is not None:
                return NoFix(
                    f"`{ctx.code(st).strip().splitlines()[0]}` leaves the function "
                    "(return/raise/break): it cannot run only in eager"
                )
            eff = side_effect(st)
            if eff is not None and not _log_call(eff):
                return NoFix(
                    f"`{ctx.code(eff).strip()}` changes a value the model may use: the {what} "
                    "does not only observe"
                )
        if names & params:
            n = sorted(names & params)[0]
            return NoFix(f"the {what} rebinds the argument `{n}`")
        reads: list[cst.CSTNode] = []
        for n in sorted(names - done_names):
            reads += name_nodes(fn.body, n, reads_only=True)
        for a in sorted(attrs - done_attrs):
            reads += _attr_reads(fn.body, a)
        done_names |= names
        done_attrs |= attrs
        for r in reads:
            if _inside(ctx, r, group) or eager_only(ctx, r):
                continue
            holder = _statement(ctx, r)
            if holder is None or ctx.function(holder) is not fn:
                return NoFix(f"`{ctx.code(r)}` is read where it cannot be moved")
            if isinstance(holder, (cst.FunctionDef, cst.ClassDef)):
                return NoFix(f"`{ctx.code(r)}` is read by a nested definition")
            if _flows(holder) is not None:
                return NoFix(
                    f"`{ctx.code(r)}` flows into `{ctx.code(holder).strip().splitlines()[0]}`"
                )
            group.append(holder)
            changed = True
    _take_producers(ctx, fn, group, params)
    group.sort(key=lambda s: ctx.span(s)[:2])
    # a statement nested in another of the group is guarded with it
    return [g for g in group if not _inside_other(ctx, g, group)]


def _mutated_names(st: cst.CSTNode) -> set[str]:
    """Local names whose object ``st`` changes without rebinding them: stores into an item or
    attribute (``neg[i, col] = v``, ``out.data = v``, ``acc[k] += v``) and the recording calls
    that count as observing when the receiver is the group's own (``rows.append(v)``): a later
    read of the name sees the change, so it must join the group (or refuse it)."""
    out: set[str] = set()

    def base(t: cst.BaseExpression) -> None:
        while isinstance(t, (cst.Subscript, cst.Attribute)):
            t = t.value
        if isinstance(t, cst.Name) and t.value != "self":
            out.add(t.value)

    def target(t: cst.BaseExpression) -> None:
        if isinstance(t, (cst.Subscript, cst.Attribute)):
            base(t)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                target(el.value)
        elif isinstance(t, cst.StarredElement):
            target(t.value)

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            target(n.target)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            target(n.target)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            target(n.target)

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in _LOGS:
                base(f.value)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    st.visit(V())
    return out


def _take_producers(
    ctx: FixContext, fn: cst.FunctionDef, group: list[cst.BaseStatement], params: set[str]
) -> None:
    """Add the statements that compute a value only the group reads (``v = t.tolist()``
    before ``self.log.append(v)``): they run only in eager with it."""
    bound = bound_names(fn.body)
    changed = True
    while changed:
        changed = False
        reads = {n.value for g in group for n in name_nodes(g, reads_only=True)}
        for n in sorted(reads - params):
            for b in bound.get(n, []):
                st = _statement(ctx, b)
                if (
                    st is None
                    or not isinstance(st, cst.SimpleStatementLine)
                    or _inside(ctx, st, group)
                    or ctx.function(st) is not fn
                    or side_effect(st) is not None
                    or eager_only(ctx, st)
                ):
                    continue
                outs = set(bound_names(st))
                if outs & params:
                    continue
                if all(
                    _inside(ctx, r, [*group, st]) or eager_only(ctx, r)
                    for m in outs
                    for r in name_nodes(fn.body, m, reads_only=True)
                ):
                    group.append(st)
                    changed = True


def _inside_other(ctx: FixContext, g: cst.CSTNode, group: list[cst.BaseStatement]) -> bool:
    ids = {id(x) for x in group if x is not g}
    return any(id(a) in ids for a in ctx.ancestors(g))


_LOGS = frozenset({"append", "extend", "insert", "appendleft", "update", "write", "put"})


def _log_call(eff: cst.CSTNode) -> bool:
    """A side effect that only records (a list/deque/dict/file/queue of the group's own)."""
    if not isinstance(eff, cst.Call):
        return False
    f = eff.func
    if isinstance(f, cst.Name):
        return f.value == "print"
    return isinstance(f, cst.Attribute) and f.attr.value in _LOGS


def guard_rewrite(ctx: FixContext, group: list[cst.BaseStatement], title: str) -> Rewrite | NoFix:
    """Each run of adjacent statements of ``group`` under one
    ``if not torch.compiler.is_compiling():``.

    A local name bound in one run and read in a later one is set to ``None`` before the first
    run, and the later run also tests ``name is not None``: a graph break between them can
    leave the first run traced (skipped) and the second run eager (dynamo gave up on the rest
    of the frame), which must not read a name never bound."""
    todo = [st for st in group if not eager_only(ctx, st)]
    if not todo:
        return NoFix("the code already runs only in eager")
    runs: list[list[cst.BaseStatement]] = []
    for st in todo:
        block = ctx.parent(st)
        prev = runs[-1][-1] if runs else None
        if (
            prev is not None
            and isinstance(block, cst.IndentedBlock)
            and ctx.parent(prev) is block
            and list(block.body).index(prev) + 1 == list(block.body).index(st)
        ):
            runs[-1].append(st)
        else:
            runs.append([st])
    binds = [set().union(*(bound_names(s) for s in run)) for run in runs]
    reads = [{n.value for s in run for n in name_nodes(s, reads_only=True)} for run in runs]
    changes: list[tuple[cst.CSTNode, object]] = []
    plain = True  # no run tests a crossing name: adjacent guards may share one `if`
    for i, run in enumerate(runs):
        earlier = set().union(*binds[:i]) if i else set()
        later = set().union(*reads[i + 1 :]) if i + 1 < len(runs) else set()
        crossing_in = sorted(reads[i] & earlier - binds[i])
        crossing_out = sorted(binds[i] & later - earlier)
        test = f"not {ctx.torch('compiler.is_compiling')}()"
        for n in crossing_in:
            test += f" and {n} is not None"
            plain = False
        first = run[0]
        guard = cst.If(
            test=cst.parse_expression(test),
            body=cst.IndentedBlock(
                body=[first.with_changes(leading_lines=[]), *run[1:]]  # type: ignore[list-item]
            ),
        )
        lines: list[cst.BaseStatement] = [
            cst.SimpleStatementLine(
                body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(n))], value=cst.Name("None"))]
            )
            for n in crossing_out
        ]
        lines.append(guard)
        lines[0] = lines[0].with_changes(leading_lines=leading_lines(first))
        changes.append((first, cst.FlattenSentinel(lines) if len(lines) > 1 else lines[0]))
        for st in run[1:]:
            changes.append((st, cst.RemoveFromParent()))
    return Rewrite(
        title=title,
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
        mergeable=plain,
    )
