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
from compilelint.fix.codemods.observe import guard_group, guard_rewrite, self_attr
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite


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
        if ctx.is_tensor(other):
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
