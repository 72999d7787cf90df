"""A number read from a tensor that decides an ``if``: keep it a 0-d tensor and lower the ``if``.

``area = m.sum().item()`` ... ``if area < self.min_area: out = torch.zeros_like(out)``: CL103
(or CL102 for ``int(t)``/``float(t)``) keeps the value a 0-d tensor, which turns the
comparison into a bool tensor; the ``if`` it decides is then lowered branchless by CL101's
statement-by-statement lowering (:mod:`branchless`: ``torch.where`` per assignment, reports
under an eager-only guard, early exits as stop flags). The two steps are one proof composed:
the first rewrite is applied to the module, the file is read again (the value model then sees
the tensor condition), CL101 lowers the ``if`` there, and the enclosing function of the result
replaces the original one. Where CL101 proposes (a growing loop's exit dropped, a submodule
called on one side only), the composition is proposed with CL101's reason; where it declines,
no fix with its reason.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.static.analysis.walker import self_attr


def _reread(ctx: FixContext, module: cst.Module) -> FixContext:
    return FixContext(
        module,
        path=ctx.path,
        module_name=ctx.module_name,
        is_package=ctx.is_package,
        project=ctx.project,
        observed=ctx.observed,
    )


def _at(ctx: FixContext, kind: type[cst.CSTNode], line: int, col: int) -> cst.CSTNode | None:
    for n in ctx.on_line(line, kind):
        if ctx.span(n)[1] == col:
            return n
    return None


def lower_decided(
    ctx: FixContext, first: Rewrite, decided: list[cst.If]
) -> Rewrite | Proposal | NoFix:
    """``first`` (the value kept a tensor) composed with CL101's lowering of each ``if`` in
    ``decided`` (the statements whose test the value now decides)."""
    from compilelint.fix.codemods.cl101_tensor_dependent_branch import TensorDependentBranchWhere
    from compilelint.fix.engine import _transform

    fn = ctx.function(decided[0])
    if fn is None or any(ctx.function(b) is not fn for b in decided):
        return NoFix("the `if` the value decides is not in the function that reads it")
    fn_at = ctx.span(fn)[:2]
    # the module keeps its lines (expression-level changes, no import added yet), so the
    # `if` statements are found again by position
    module = _transform(ctx.module, [first], True)
    titles = [first.title]
    reasons: list[str] = []
    imports = set(first.imports)
    spots = sorted({ctx.span(b)[:2] for b in decided}, reverse=True)
    for line, col in spots:
        again = _reread(ctx, module)
        node = _at(again, cst.If, line, col)
        if not isinstance(node, cst.If):
            return NoFix("the `if` the value decides was not found after keeping it a tensor")
        test = again.code(node.test).strip()
        got = TensorDependentBranchWhere()._if(again, node)
        if isinstance(got, NoFix):
            return NoFix(
                f"the value decides `if {test}:`, which has no branchless form: {got.reason}"
            )
        if isinstance(got, Proposal):
            reasons.append(got.reason)
        titles.append(f"the `if` it decides: {got.title}")
        imports.update(got.imports)
        module = _transform(module, [got], True)
    again = _reread(ctx, module)
    new_fn = _at(again, cst.FunctionDef, *fn_at)
    if not isinstance(new_fn, cst.FunctionDef) or new_fn.name.value != fn.name.value:
        return NoFix("the function was not found after lowering the `if`")
    title = "; ".join(titles)
    changes = [(fn, new_fn)]
    if reasons:
        return Proposal(title, changes, "; ".join(reasons), imports=tuple(sorted(imports)))
    return Rewrite(title, changes, imports=tuple(sorted(imports)))


def _int_collection(e: cst.BaseExpression) -> bool:
    """A literal list/tuple/set of int literals (``(0, 1, 2)``, ``{50256}``)."""
    if isinstance(e, (cst.List, cst.Tuple, cst.Set)):
        return bool(e.elements) and all(
            isinstance(el, cst.Element) and isinstance(el.value, cst.Integer) for el in e.elements
        )
    return False


def int_ids(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """Is ``e`` ``self.X`` where the class assigns ``X`` once, in ``__init__``, a collection of
    int literals, or ``set(p)``/``tuple(p)``/``list(p)``/``frozenset(p)``/``p`` of an
    ``__init__`` parameter whose default is one (the ids of ``v in self.stop_ids``)?"""
    attr = self_attr(e)
    if attr is None:
        return False
    klass = ctx.enclosing(e, cst.ClassDef)
    if klass is None:
        return False
    stores: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
    for fn in klass.body.body:
        if not isinstance(fn, cst.FunctionDef):
            continue
        for node in all_nodes(fn):
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = (
                    [t.target for t in node.targets]
                    if isinstance(node, cst.Assign)
                    else [node.target]
                )
                for t in targets:
                    if self_attr(t) == attr:
                        if not isinstance(node, cst.Assign) or node.value is None:
                            return False
                        stores.append((fn, node.value))
    if len(stores) != 1 or stores[0][0].name.value != "__init__":
        return False
    fn, value = stores[0]
    if _int_collection(value):
        return True
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in ("set", "frozenset", "tuple", "list")
        and len(value.args) == 1
        and not value.args[0].keyword
        and not value.args[0].star
    ):
        value = value.args[0].value
    if isinstance(value, cst.Name):
        for p in [*fn.params.params, *fn.params.kwonly_params]:
            if p.name.value == value.value:
                return p.default is not None and _int_collection(p.default)
    return False
