"""CL401: ``torch.compile(...)`` in a loop is hoisted before the loop when the loop does not
rebind any name it reads.

- ``for ...: fc = torch.compile(f); fc(x)``   -> ``fc = torch.compile(f)`` before the loop
- ``for ...: y = torch.compile(f)(x)``        -> ``f_compiled = torch.compile(f)`` before the
  loop, ``y = f_compiled(x)`` in it
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import Codemod, bound_names, names_in
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

_LOOPS = (cst.For, cst.While)
_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class HoistCompile(Codemod):
    CODE = "CL401"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        calls = ctx.nodes_at(finding, cst.Call)
        if not calls:
            return NoFix("the call was not found in the file")
        call = calls[0]
        loops: list[cst.For | cst.While] = []
        prev: cst.CSTNode = call
        for a in ctx.ancestors(call):
            if isinstance(a, (cst.FunctionDef, cst.ClassDef)):
                break
            if isinstance(a, _SCOPES):
                return NoFix("the call is inside a lambda or a comprehension")
            if isinstance(a, _LOOPS) and prev is a.body:
                loops.append(a)
            prev = a
        if not loops:
            return NoFix(
                "torch.compile runs on every call of traced code: build the compiled object "
                "once, where the model is built"
            )
        reads = names_in(call)
        outer: cst.For | cst.While | None = None
        for loop in loops:  # innermost first
            if reads & set(bound_names(loop)):
                break
            outer = loop
        if outer is None:
            changed = sorted(reads & set(bound_names(loops[0])))
            return NoFix(
                f"the loop changes `{changed[0]}`, which the call reads: each iteration "
                "compiles a different object"
            )
        if not isinstance(ctx.parent(outer), (cst.IndentedBlock, cst.Module)):
            return NoFix("the loop is not in a block of statements")
        moved = self._moved_statement(ctx, call, outer)
        if moved is not None:
            hoisted = moved.with_changes(leading_lines=[*outer.leading_lines, *moved.leading_lines])
            new_loop = outer.visit(_Replace(moved, None))
            title = "hoist `torch.compile(...)` out of the loop"
        else:
            base = self._base(call)
            name = ctx.fresh_name(f"{base}_compiled")
            hoisted = cst.SimpleStatementLine(
                body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=call)],
                leading_lines=outer.leading_lines,
            )
            new_loop = outer.visit(_Replace(call, cst.Name(name)))
            title = f"compile once before the loop as `{name}`"
        new_loop = new_loop.with_changes(leading_lines=[])  # type: ignore[union-attr]
        return Rewrite(
            title=title,
            changes=[(outer, cst.FlattenSentinel([hoisted, new_loop]))],  # type: ignore[list-item]
        )

    def _moved_statement(
        self, ctx: FixContext, call: cst.Call, loop: cst.For | cst.While
    ) -> cst.SimpleStatementLine | None:
        """``name = torch.compile(...)`` alone on its line, ``name`` bound only there and not
        read in the loop before it: the whole statement moves."""
        assign = ctx.parent(call)
        if not (
            isinstance(assign, cst.Assign)
            and assign.value is call
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return None
        line = ctx.parent(assign)
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        if not isinstance(ctx.parent(line), cst.IndentedBlock):
            return None
        name = assign.targets[0].target.value
        if len(bound_names(loop).get(name, [])) != 1:
            return None
        start = ctx.span(line)[:2]
        for n in _names(loop, name):
            if ctx.span(n)[:2] < start:
                return None  # read (from an earlier iteration) before it is assigned
        return line

    def _base(self, call: cst.Call) -> str:
        if call.args:
            v = call.args[0].value
            if isinstance(v, cst.Attribute):
                return v.attr.value
            if isinstance(v, cst.Name):
                return v.value
        return "fn"


def _names(node: cst.CSTNode, name: str) -> list[cst.Name]:
    out: list[cst.Name] = []

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == name:
                out.append(n)

    node.visit(V())
    return out


class _Replace(cst.CSTTransformer):
    """Replace one node (by identity); ``None`` removes a statement (``pass`` if its block
    would be empty)."""

    def __init__(self, target: cst.CSTNode, new: cst.CSTNode | None) -> None:
        self.target = target
        self.new = new

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[no-untyped-def]
        if original is self.target:
            return self.new if self.new is not None else cst.RemoveFromParent()
        if isinstance(updated, cst.IndentedBlock) and not updated.body:
            return updated.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        return updated
