"""Python values picked by a tensor condition (CL101 when no side is a tensor).

``if (ratio - 1).abs().max() > eps: n = 1 else: n = 0`` selects Python numbers, strings or
flags. Two remedies a PyTorch engineer writes, each only where it keeps what the model computes:

- the value only reaches arithmetic that ends in a tensor (``coef * n * entropy_loss``, through
  Python numbers and ``self`` attributes on the way): ``n = torch.where(cond, 1, 0)``, a 0-dim
  tensor computes what the Python number did (``arithmetic_reaches_tensor``);
- the value is only read by code that observes (a log line, a print, a list on ``self`` used as
  a log): the ``if`` and what reads the value run only in eager (``observed_only``), so
  compiled calls skip them instead of breaking the graph.

Anything else (the value selects a submodule, indexes, reaches a ``return`` as a Python value,
decides a loop) gets no rewrite: its Python type is part of what the model computes.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import ARITH_OPERATORS, number_expr
from compilelint.fix.codemods.observe import guard_group, guard_rewrite
from compilelint.fix.context import FixContext
from compilelint.fix.evidence import tensor_only_chain
from compilelint.fix.records import NoFix, Rewrite
from compilelint.static.analysis.walker import self_attr


def _number_like(e: cst.BaseExpression) -> bool:
    """A Python number whatever the code around it: a numeric expression, a name or a
    ``self`` attribute (a hyperparameter)."""
    return number_expr(e) or isinstance(e, cst.Name) or self_attr(e) is not None


def arithmetic_reaches_tensor(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """``e`` is an operand of arithmetic that meets a tensor on the way up: ``logits / e``,
    ``coef * e * loss``, ``-(e * 0.5) + t``. Every other operand before the tensor is number
    like, so a 0-dim tensor in place of the Python number computes the same value (Python
    numbers and 0-dim tensors promote alike with a tensor of floats)."""
    cur: cst.CSTNode = e
    while True:
        p = ctx.parent(cur)
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
            cur = p
            continue
        if not isinstance(p, cst.BinaryOperation) or not isinstance(p.operator, ARITH_OPERATORS):
            return False
        other = p.right if p.left is cur else p.left if p.right is cur else None
        if other is None:
            return False
        if ctx.is_tensor(other) or tensor_only_chain(other):
            return True
        if not _number_like(other):
            return False
        cur = p


def observed_only(ctx: FixContext, node: cst.If, why: str) -> Rewrite | NoFix:
    """The ``if`` and every statement that reads what it binds under the eager-only guard,
    when nothing they bind reaches the model's computation; else ``NoFix(why + reason)``."""
    group = guard_group(ctx, node, "branch")
    if isinstance(group, NoFix):
        return NoFix(f"{why}; nor does only observing code read it ({group.reason})")
    if len(group) < 2:
        return NoFix(f"{why}; and nothing reads what the branch picks")
    from compilelint.fix.codemods.tolist_uses import logged

    if not logged([g for g in group if g is not node]):
        return NoFix(f"{why}; nor does only a log line read it")
    return guard_rewrite(
        ctx,
        group,
        "the branch picks Python values that only observing code reads (a log line): it runs "
        "only in eager, with what reads them, under `if not torch.compiler.is_compiling():`",
    )


def flag_test(ctx: FixContext, e: cst.CSTNode) -> bool:
    """``e`` is the condition of an ``if`` or a ternary, whole or through ``not``/``and``/
    ``or``: as a 0-dim bool tensor that branch becomes a tensor branch, which CL101 rewrites
    in the next round (verified together; a branch it cannot rewrite is a break the
    verification sees)."""
    cur: cst.CSTNode = e
    while True:
        p = ctx.parent(cur)
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not):
            cur = p
            continue
        if isinstance(p, cst.BooleanOperation):
            cur = p
            continue
        return isinstance(p, (cst.If, cst.IfExp)) and p.test is cur


def _returned(ctx: FixContext, e: cst.CSTNode) -> bool:
    """``return e`` or ``return a, e``."""
    p = ctx.parent(e)
    if isinstance(p, cst.Element):
        p = ctx.parent(ctx.parent(p) or p) if isinstance(ctx.parent(p), cst.Tuple) else None
    return isinstance(p, cst.Return)


def python_value_uses(
    ctx: FixContext, node: cst.If, names: list[str], attrs: list[str]
) -> str | NoFix:
    """Python values picked by a tensor test (``names`` bound by ``node``, ``attrs`` its
    ``self`` attributes) whose reads reach neither tensor arithmetic nor a log line, but are
    returned to the caller or kept on ``self``: the reason a 0-dim tensor in their place is
    only proposed (its readers are not in this function). A read of any other kind: NoFix."""
    from compilelint.fix.codemods.base import name_nodes

    fn = ctx.function(node)
    if fn is None:
        return NoFix("the branch is not inside a function")
    why: list[str] = []
    for n in names:
        for r in name_nodes(fn.body, n, reads_only=True):
            if any(a is node for a in ctx.ancestors(r)):
                continue
            if arithmetic_reaches_tensor(ctx, r) or flag_test(ctx, r):
                continue
            if _returned(ctx, r):
                if fn.name.value == "forward":
                    where = "the model's caller"
                else:
                    where = f"the callers of `{fn.name.value}`"
                why.append(
                    f"`{n}` is returned to {where} as a Python value: as a 0-dim tensor the "
                    "graph does not break here, but a caller that branches on it (`if "
                    f"{n}:`) or stores it then breaks or syncs there; apply it when the "
                    "caller only does tensor operations with it"
                )
                continue
            return NoFix(f"`{n}` is also used in `{ctx.code(ctx.statement(r) or r).strip()}`")
    for a in attrs:
        why.append(
            f"`self.{a}` is kept on the module as a Python value for code outside forward "
            "(a trainer, a callback): as a 0-dim tensor it no longer breaks the graph, but its "
            "readers get a tensor (`bool(self."
            f"{a})` or `.item()` gives the value back, a sync on GPU); apply it when they accept one"
        )
    if not why:
        return NoFix("nothing reads what the branch picks")
    return "; ".join(dict.fromkeys(why))


def returned_to_arithmetic(ctx: FixContext, node: cst.CSTNode) -> bool:
    """``node`` is in a method (not ``forward``) whose every call in its class,
    ``self.<method>(...)``, is an operand of arithmetic that meets a tensor
    (``loss + self._coef(ratio) * entropy``): its callers only do tensor operations with the
    value it returns, so a 0-dim tensor in place of a Python number computes the same."""
    from compilelint.fix.codemods.base import all_nodes

    fn = ctx.function(node)
    klass = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if fn is None or klass is None or fn.name.value in ("forward", "__call__"):
        return False
    if any(isinstance(d.decorator, (cst.Name, cst.Attribute)) for d in fn.decorators):
        return False  # a property or a static method is read in other ways
    name = fn.name.value
    calls = 0
    for n in all_nodes(klass):
        if isinstance(n, cst.Attribute) and self_attr(n) == name:
            call = ctx.parent(n)
            if not (isinstance(call, cst.Call) and call.func is n):
                return False  # passed around as a function
            if not arithmetic_reaches_tensor(ctx, call):
                return False
            calls += 1
    return calls > 0
