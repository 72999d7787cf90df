"""CL110: operators whose output shape depends on tensor data (nonzero, unique, ...)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

# Always data-dependent, as ``torch.<name>(...)`` or ``tensor.<name>(...)``.
_OPS = frozenset(
    {"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "bincount"}
)


# Functions outside ``torch.<name>`` whose aten operator torch tags ``dynamic_output_shape``
# (torch 2.13: GB0036 "Dynamic shape operator", on every device): least squares (its residuals'
# shape depends on the rank), and one-hot encoding without ``num_classes`` (the largest label).
# Each with the argument that fixes the output's size when given (keyword, position; a given
# ``-1`` does not), or None: the shape is data-dependent whatever the call passes.
_QUALIFIED: dict[str, tuple[str, int] | None] = {
    "torch.linalg.lstsq": None,
    "torch.nn.functional.one_hot": ("num_classes", 1),
}
_QUALIFIED_NAMES = frozenset(q.rsplit(".", 1)[1] for q in _QUALIFIED)


def _kw(node: cst.Call, name: str) -> cst.Arg | None:
    for a in node.args:
        if a.keyword is not None and a.keyword.value == name:
            return a
    return None


class DataDependentOutputShape(Check):
    CODE = "CL110"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = (
            func.attr.value
            if isinstance(func, cst.Attribute)
            else func.value
            if isinstance(func, cst.Name)
            else None
        )
        if last in _QUALIFIED_NAMES:
            q = self.qualify(func)
            if q in _QUALIFIED:
                self._qualified(node, q)
                return
        if isinstance(func, cst.Name):
            q = self.qualify(func)
            if q is not None and q.startswith("torch.") and q.count(".") == 1:
                name = q[6:]
                if name in _OPS or name in ("where", "repeat_interleave"):
                    self._function(node, name)
            return
        if not isinstance(func, cst.Attribute):
            return
        name = func.attr.value
        if name not in _OPS and name not in ("where", "repeat_interleave"):
            return
        q = self.qualify(func)
        if q is not None and q.startswith("torch."):
            if q != f"torch.{name}":
                return  # torch.special.xxx, torch.Tensor.xxx, ...
            self._function(node, name)
        else:
            self._method(node, func, name)

    def _qualified(self, node: cst.Call, q: str) -> None:
        """A call of a :data:`_QUALIFIED` function: ``torch.linalg.lstsq(a, b)`` always;
        ``F.one_hot(labels)`` unless ``num_classes`` is given (the number of classes is then
        the largest label plus one), and only on a tensor."""
        if any(a.star for a in node.args):
            return
        size = _QUALIFIED[q]
        if size is None:
            self.report(node, op=q)
            return
        pos = [a for a in node.args if a.keyword is None]
        given = _kw(node, size[0])
        n = given.value if given is not None else pos[size[1]].value if len(pos) > size[1] else None
        if n is not None and not (
            isinstance(n, cst.UnaryOperation)
            and isinstance(n.operator, cst.Minus)
            and isinstance(n.expression, cst.Integer)
        ):
            return
        if pos:
            taint = self.taint(pos[0].value)
            if taint:
                self.report(node, requires=taint, op=q)

    def _function(self, node: cst.Call, name: str) -> None:
        args = node.args
        if any(a.star for a in args):
            return
        if name in _OPS:
            self.report(node, op=f"torch.{name}")
        elif name == "where":
            if len(args) == 1 and args[0].keyword is None:
                self.report(node, op="torch.where(condition)")
        elif name == "repeat_interleave" and _kw(node, "output_size") is None:
            pos = [a for a in args if a.keyword is None]
            rep = _kw(node, "repeats")
            repeats = (
                rep.value
                if rep is not None
                else (pos[1].value if len(pos) >= 2 else pos[0].value if len(pos) == 1 else None)
            )
            if repeats is not None:
                taint = self.taint(repeats)
                if taint:
                    self.report(node, requires=taint, op="torch.repeat_interleave")

    def _method(self, node: cst.Call, func: cst.Attribute, name: str) -> None:
        recv = self.taint(func.value)
        if not recv or any(a.star for a in node.args):
            return
        if name in _OPS:
            self.report(node, requires=recv, op=f"Tensor.{name}")
        elif name == "repeat_interleave" and _kw(node, "output_size") is None:
            rep = _kw(node, "repeats")
            pos = [a for a in node.args if a.keyword is None]
            repeats = rep.value if rep is not None else (pos[0].value if pos else None)
            if repeats is not None:
                taint = self.taint(repeats)
                if taint:
                    self.report(node, requires=taint, op="Tensor.repeat_interleave")
