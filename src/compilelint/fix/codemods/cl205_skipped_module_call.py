"""CL205: a standard-library call (timers, ``random``, frame inspection, hashing, files) or a
``with`` block dynamo cannot trace, in code that only observes, runs only in eager.

- ``t0 = time.perf_counter()`` ... ``self.elapsed = time.perf_counter() - t0``
                                  -> both under ``if not torch.compiler.is_compiling():``
                                     (with every statement that reads what they bind)
- ``key = hashlib.sha1(f"relpos-{n}".encode()).hexdigest()`` used only as the key of dicts
  on ``self`` (``key in self._cache``, ``self._cache[key]``, ``.get``/``.setdefault``/``.pop``)
                                  -> ``key = f"relpos-{n}"``: the hashed value itself is the
                                     key, so the cache maps the same inputs to the same entries
- ``if self.training and random.random() < self.p: x = torch.flip(x, [-1])`` (a random
  augmentation)           -> proposed, never applied: ``if self.training:`` with
                             ``x = torch.where(torch.rand((), device=x.device) < self.p,
                             torch.flip(x, [-1]), x)``: torch's generator draws instead of
                             Python's, so the outputs cannot be compared with the original's
- ``with open(path, "a") as fh: fh.write(...)`` (a block that only records)
                                  -> the block under the guard
- ``with self._lock: x = self.lin(x)`` (the block computes what the model returns)
                                  -> ``with (self._lock if not torch.compiler.is_compiling()
                                     else contextlib.nullcontext()):``: the lock is taken in
                                     eager; a compiled graph runs on one thread's call anyway

A value that flows on into the model's computation gets no fix: it must be computed outside
the compiled region and passed in (a ``torch.compiler.disable``d helper would still break the
graph, at its call).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, all_nodes, name_nodes, side_effect
from compilelint.fix.codemods.constant_calls import hoist_constant_call
from compilelint.fix.codemods.draws import draw_kind, python_draws, simple_assigns
from compilelint.fix.codemods.observe import _statement, guard_group, guard_rewrite
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr


class SkippedCallEagerOnly(Codemod):
    CODE = "CL205"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        nodes = ctx.nodes_at(finding, cst.CSTNode)
        if not nodes:
            return NoFix("the reported call was not found in the file")
        node = nodes[0]
        if isinstance(node, cst.With):
            return self._with(ctx, node, None)
        for a in ctx.ancestors(node):
            if isinstance(a, cst.WithItem):
                w = ctx.parent(a)
                if isinstance(w, cst.With):
                    return self._with(ctx, w, a)
            if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                break
        seed = _statement(ctx, node)
        if seed is None:
            return NoFix("the call is not in a function body")
        group = guard_group(ctx, seed, "call")
        if isinstance(group, NoFix):
            draw = next((c for c in ctx.nodes_at(finding, cst.Call) if draw_kind(c)), None)
            kept = python_draws(ctx, seed, draw) if draw is not None else None
            if isinstance(kept, Rewrite):
                return kept
            once = hoist_constant_call(ctx, node)
            if once is not None:
                return once
            keyed = _hash_key(ctx, seed)
            if keyed is not None:
                return keyed
            drawn = _random_branch(ctx, finding, seed)
            if drawn is not None:
                if isinstance(kept, str):
                    drawn.reason += f"; Python's draws were not kept: {kept}"
                return drawn
            kept_why = f"; Python's draws were not kept: {kept}" if isinstance(kept, str) else ""
            return NoFix(
                f"{group.reason}; a value that flows on must be computed outside the compiled "
                "region and passed in (a `torch.compiler.disable`d helper still breaks the graph)"
                + kept_why
            )
        return guard_rewrite(
            ctx,
            group,
            "the call only observes: run it (and what reads its value) only in eager, under "
            "`if not torch.compiler.is_compiling():`",
        )

    def _with(self, ctx: FixContext, node: cst.With, item: cst.WithItem | None) -> Rewrite | NoFix:
        group = guard_group(ctx, node, "block")
        if not isinstance(group, NoFix):
            return guard_rewrite(
                ctx,
                group,
                "the `with` block only observes: run it only in eager, under "
                "`if not torch.compiler.is_compiling():`",
            )
        items = [item] if item is not None else list(node.items)
        if any(i.asname is not None for i in items):
            return NoFix(
                f"{group.reason}; the context manager's value (`as ...`) is used by the block"
            )
        if node.asynchronous is not None:
            return NoFix("an `async with` is not rewritten")
        test = cst.parse_expression(f"not {ctx.torch('compiler.is_compiling')}()")
        changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        for i in items:
            swap = cst.IfExp(
                test=test,
                body=i.item.with_changes(lpar=[], rpar=[]),
                orelse=cst.parse_expression("contextlib.nullcontext()"),
                lpar=[cst.LeftParen()],
                rpar=[cst.RightParen()],
            )
            changes.append((i.item, swap))
        return Rewrite(
            title="enter the context manager only in eager: "
            "`with (cm if not torch.compiler.is_compiling() else contextlib.nullcontext()):`",
            changes=changes,
            imports=("torch", "contextlib"),
        )


_HASHES = frozenset({"hexdigest", "digest"})
_KEYED = frozenset({"get", "setdefault", "pop"})
_NEUTRAL = frozenset({"clear", "__len__"})


def _hashed(e: cst.BaseExpression) -> cst.BaseExpression | None:
    """``data`` of ``hashlib.<algo>(data).hexdigest()`` (``.digest()``), the ``str`` when
    ``data`` is ``s.encode()``."""
    if not (
        isinstance(e, cst.Call)
        and not e.args
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value in _HASHES
    ):
        return None
    h = e.func.value
    if not (
        isinstance(h, cst.Call)
        and isinstance(h.func, cst.Attribute)
        and isinstance(h.func.value, cst.Name)
        and h.func.value.value == "hashlib"
        and len(h.args) == 1
        and h.args[0].keyword is None
        and not h.args[0].star
    ):
        return None
    data = h.args[0].value
    if (
        isinstance(data, cst.Call)
        and isinstance(data.func, cst.Attribute)
        and data.func.attr.value == "encode"
        and len(data.args) <= 1
    ):
        return data.func.value
    return data


def _key_use(ctx: FixContext, use: cst.Name) -> str | None:
    """``X`` when ``use`` is the key of ``self.X``: ``self.X[use]``, ``use in self.X``,
    ``self.X.get(use, ...)``/``setdefault``/``pop``."""
    p = ctx.parent(use)
    if isinstance(p, cst.Index):
        el = ctx.parent(p)
        sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
        if isinstance(sub, cst.Subscript) and len(sub.slice) == 1:
            return self_attr(sub.value)
        return None
    if isinstance(p, cst.Comparison) and p.left is use and len(p.comparisons) == 1:
        c = p.comparisons[0]
        if isinstance(c.operator, (cst.In, cst.NotIn)):
            return self_attr(c.comparator)
        return None
    if isinstance(p, cst.Arg) and p.keyword is None:
        call = ctx.parent(p)
        if (
            isinstance(call, cst.Call)
            and call.args
            and call.args[0] is p
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _KEYED
        ):
            return self_attr(call.func.value)
    return None


def _hash_key(ctx: FixContext, seed: cst.BaseStatement) -> Rewrite | None:
    """``key = hashlib.sha1(s.encode()).hexdigest()`` whose only uses are as the key of dicts
    on ``self`` that nothing else reads -> ``key = s``."""
    if not (isinstance(seed, cst.SimpleStatementLine) and len(seed.body) == 1):
        return None
    a = seed.body[0]
    if not (
        isinstance(a, cst.Assign)
        and len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Name)
    ):
        return None
    data = _hashed(a.value)
    fn = ctx.function(seed)
    if data is None or fn is None or side_effect(data) is not None:
        return None
    name = a.targets[0].target.value
    dicts: set[str] = set()
    for use in name_nodes(fn.body, name, reads_only=True):
        d = _key_use(ctx, use)
        if d is None:
            return None
        dicts.add(d)
    if not dicts:
        return None
    # every other use of those dicts in the class must not see the keys
    scope = ctx.enclosing(fn, cst.ClassDef) or fn
    for node in all_nodes(scope):
        if not (isinstance(node, cst.Attribute) and self_attr(node) in dicts):
            continue
        p = ctx.parent(node)
        if isinstance(p, cst.AssignTarget) and p.target is node:
            continue  # `self._cache = {}`
        if isinstance(p, cst.Subscript) or isinstance(p, cst.ComparisonTarget):
            key = _subject(ctx, p)
            if isinstance(key, cst.Name) and key.value == name and ctx.function(node) is fn:
                continue
            return None
        if isinstance(p, cst.Attribute) and p.attr.value in _KEYED | _NEUTRAL:
            call = ctx.parent(p)
            if p.attr.value in _NEUTRAL:
                continue
            if (
                isinstance(call, cst.Call)
                and call.args
                and isinstance(call.args[0].value, cst.Name)
                and call.args[0].value.value == name
                and ctx.function(node) is fn
            ):
                continue
            return None
        if isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
                if call.func.value == "len":
                    continue
        return None
    new: cst.BaseExpression
    if isinstance(data, cst.FormattedString) or isinstance(data, cst.SimpleString):
        new = data
    else:
        new = data.with_changes(lpar=data.lpar, rpar=data.rpar)
    return Rewrite(
        title="the hash is only a dict key: key the cache on the hashed value itself "
        "(dynamo skips `hashlib`)",
        changes=[(a.value, new)],
    )


def _subject(ctx: FixContext, p: cst.CSTNode) -> cst.BaseExpression | None:
    """The key of ``self.X[key]`` or the left side of ``key in self.X``."""
    if (
        isinstance(p, cst.Subscript)
        and len(p.slice) == 1
        and isinstance(p.slice[0].slice, cst.Index)
    ):
        return p.slice[0].slice.value
    if isinstance(p, cst.ComparisonTarget):
        cmp = ctx.parent(p)
        if isinstance(cmp, cst.Comparison):
            return cmp.left
    return None


_DRAWS = frozenset({"random"})
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _random_branch(ctx: FixContext, finding: Finding, seed: cst.BaseStatement) -> Proposal | None:
    """``if [flags and] random.random() < p:`` whose body assigns names -> the flags stay a
    Python ``if``, the draw comes from ``torch.rand`` and each name is chosen with
    ``torch.where``: a proposal, since the numbers drawn differ from Python's."""
    if not isinstance(seed, cst.If) or seed.orelse is not None:
        return None
    draw = next(
        (
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, cst.Attribute)
            and isinstance(c.func.value, cst.Name)
            and c.func.value.value == "random"
            and c.func.attr.value in _DRAWS
            and not c.args
        ),
        None,
    )
    if draw is None:
        return None
    test = seed.test
    flags: list[cst.BaseExpression] = []
    cmp = test
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        flags, cmp = [test.left], test.right
    if not (
        isinstance(cmp, cst.Comparison)
        and len(cmp.comparisons) == 1
        and (cmp.left is draw or cmp.comparisons[0].comparator is draw)
        and isinstance(
            cmp.comparisons[0].operator,
            (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual),
        )
    ):
        return None
    assigns = simple_assigns(seed.body)
    if not assigns:
        return None
    th = ctx.torch()
    first = assigns[0].targets[0].target.value  # type: ignore[attr-defined]
    rand = cst.parse_expression(f"{th}.rand((), device={first}.device)")
    cond = cmp.deep_replace(draw, rand)
    lines = [
        cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=a.targets,
                    value=cst.Call(
                        func=cst.parse_expression(f"{th}.where"),
                        args=[
                            cst.Arg(cond),  # type: ignore[arg-type]
                            cst.Arg(a.value),
                            cst.Arg(a.targets[0].target),
                        ],
                    ),
                )
            ]
        )
        for a in assigns
    ]
    if flags:
        new: cst.BaseStatement = seed.with_changes(
            test=flags[0], body=cst.IndentedBlock(body=lines)
        )
        out: cst.CSTNode | cst.FlattenSentinel[cst.SimpleStatementLine] = new
    else:
        out = cst.FlattenSentinel(
            [lines[0].with_changes(leading_lines=seed.leading_lines), *lines[1:]]
        )
    return Proposal(
        title="draw with `torch.rand` and choose with `torch.where` (no Python branch on the draw)",
        changes=[(seed, out)],
        reason="the draw comes from torch's generator instead of Python's `random`: the same "
        "distribution, other numbers (and later torch draws shift), so the outputs cannot be "
        "compared with the original's; both branches are computed",
        imports=("torch",),
    )
