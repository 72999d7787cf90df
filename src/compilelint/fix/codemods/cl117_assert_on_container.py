"""CL117: ``assert args`` on a ``*args`` tuple, or on a local bound once to a tuple, list or
dict display, becomes ``assert len(args) > 0``: the truth of a tuple, list or dict is that it
is not empty, so the check is the same, and ``len`` of a container is a Python int that
torch.compile folds (zuko's ``ComposedTransform.__init__``: ``assert transforms, "..."``)."""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

_DISPLAYS = (cst.Tuple, cst.List, cst.Dict)


class AssertContainerLength(Codemod):
    CODE = "CL117"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        found = [a for a in ctx.nodes_at(finding, cst.Assert) if isinstance(a.test, cst.Name)]
        if not found:
            return NoFix("the assert on a name was not found in the file")
        node = found[0]
        test = node.test
        assert isinstance(test, cst.Name)
        fn = ctx.function(node)
        if fn is None:
            return NoFix("the assert is not inside a function")
        if not _is_container(fn, test.value):
            return NoFix(
                f"`{test.value}` is not known to be a tuple, list or dict (the `*args` "
                "parameter, or a local bound once to a display): what its truth means is for "
                "the author to write"
            )
        new = cst.parse_expression(f"len({test.value}) > 0").with_changes(
            lpar=test.lpar, rpar=test.rpar
        )
        return Rewrite(
            title=f"assert `len({test.value}) > 0` (the same truth, a Python int)",
            changes=[(test, new)],
        )


def _is_container(fn: cst.FunctionDef, name: str) -> bool:
    """``name`` is ``fn``'s ``*args`` parameter never re-bound, or a local bound exactly once,
    to a tuple, list or dict display."""
    star = fn.params.star_arg
    binds = _bindings(fn.body, name)
    if isinstance(star, cst.Param) and star.name.value == name:
        return not binds
    if any(p.name.value == name for p in (*fn.params.params, *fn.params.kwonly_params)):
        return False
    return len(binds) == 1 and isinstance(binds[0], _DISPLAYS)


def _bindings(body: cst.CSTNode, name: str) -> list[cst.BaseExpression | None]:
    """The values bound to ``name`` in ``body`` (None for a binding that is not a plain
    assignment: augmented, a loop target, ``with ... as``, a nested def, ...)."""
    out: list[cst.BaseExpression | None] = []

    class Visit(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if node.name.value == name:
                out.append(None)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                if isinstance(t.target, cst.Name) and t.target.value == name:
                    out.append(node.value)
                elif _mentions(t.target, name):
                    out.append(None)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if _mentions(node.target, name):
                out.append(node.value if isinstance(node.target, cst.Name) else None)

        def rebinds(self, target: cst.CSTNode) -> None:
            """A binding of ``target`` that is not a plain assignment (None) when it binds
            ``name``."""
            if _mentions(target, name):
                out.append(None)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self.rebinds(node.target)

        def visit_For(self, node: cst.For) -> None:
            self.rebinds(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            self.rebinds(node.name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self.rebinds(node.target)

        def declares(self, node: cst.Global | cst.Nonlocal) -> None:
            """``global name`` / ``nonlocal name``: a binding outside ``body`` (None)."""
            if any(n.name.value == name for n in node.names):
                out.append(None)

        def visit_Global(self, node: cst.Global) -> None:
            self.declares(node)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            self.declares(node)

    body.visit(Visit())
    return out


def _mentions(target: cst.CSTNode, name: str) -> bool:
    """``target`` (an assignment target) binds ``name`` itself (a name, or one inside a tuple
    or list target); an attribute or subscript of it binds nothing."""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_mentions(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _mentions(target.value, name)
    return False
