"""CL115: a tensor used as a size (``torch.zeros((b, n))``, ``x.view(n, -1)``)."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

# torch factories whose positional arguments (or first tuple, or ``size=``) are sizes
_FACTORIES = frozenset({"zeros", "ones", "empty", "rand", "randn"})
_FIRST_ONLY = frozenset({"full"})  # torch.full(size, fill_value)
# torch.arange(end) / (start, end[, step]): every positional argument sets the length (torch
# 2.13 reads a tensor's value there: "Data dependent operator", GB0033)
_RANGES = frozenset({"arange"})
# tensor methods: every positional argument (or one tuple) is a size
_SIZE_METHODS = frozenset({"view", "reshape", "expand", "repeat"})
_NEW_METHODS = frozenset({"new_zeros", "new_ones", "new_empty"})
_NEW_FIRST = frozenset({"new_full"})
# positions of sizes in other methods
_POSITIONS: dict[str, tuple[int, ...]] = {"narrow": (1, 2), "tensor_split": (0,)}
# torch functions whose second positional argument (or a keyword) holds sizes or split points:
# `torch.tensor_split(x, t)` reads a tensor `t`'s values (GB0033, "Data dependent operator")
_SECOND = {"tensor_split": ("indices", "sections", "tensor_indices_or_sections")}
# functions outside ``torch.<name>`` with a size argument (keyword, position): one-hot encoding's
# number of classes (`F.one_hot(ids, ids.max() + 1)`, or through `max(n, k)`: torch 2.13 reads
# the tensor's value, "Data dependent operator", GB0033)
_QUALIFIED = {"torch.nn.functional.one_hot": ("num_classes", 1)}


class TensorSizeArgument(Check):
    CODE = "CL115"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        q = self.qualify(func)
        sizes: list[cst.BaseExpression] = []
        pos = [a for a in node.args if a.keyword is None]
        if q in _QUALIFIED:
            kw, at = _QUALIFIED[q]
            sizes = [pos[at].value] if len(pos) > at else []
            sizes += [a.value for a in node.args if a.keyword and a.keyword.value == kw]
        elif q is not None and q.startswith("torch.") and q.count(".") == 1:
            name = q[6:]
            if name in _FACTORIES or name in _RANGES:
                sizes = [a.value for a in pos]
            elif name in _FIRST_ONLY:
                sizes = [pos[0].value] if pos else []
            elif name in _SECOND:
                sizes = [pos[1].value] if len(pos) > 1 else []
                sizes += [
                    a.value for a in node.args if a.keyword and a.keyword.value in _SECOND[name]
                ]
            else:
                return
            sizes += [a.value for a in node.args if a.keyword and a.keyword.value == "size"]
        elif isinstance(func, cst.Attribute) and (q is None or not q.startswith("torch.")):
            name = func.attr.value
            if name in _SIZE_METHODS or name in _NEW_METHODS:
                sizes = [a.value for a in pos]
            elif name in _NEW_FIRST:
                sizes = [pos[0].value] if pos else []
            elif name in _POSITIONS:
                sizes = [pos[i].value for i in _POSITIONS[name] if i < len(pos)]
            else:
                return
            if name in _NEW_METHODS or name in _NEW_FIRST:
                sizes += [a.value for a in node.args if a.keyword and a.keyword.value == "size"]
            if not sizes or not self.taint(func.value):
                return  # not a tensor method call
        else:
            return
        if any(a.star for a in node.args):
            return
        for s in sizes:
            for el in self._elements(s):
                taint = V.data_sources(self.w.value(el))
                if taint:
                    self.report(
                        el, requires=taint, expr=self.code(el), call=self.code(node.func, 40)
                    )
                    return

    def _elements(self, e: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The sizes in a size argument: the elements of a literal tuple/list, else itself
        (a value that is a sequence, like ``x.shape``, holds Python ints: nothing to check)."""
        if isinstance(e, (cst.Tuple, cst.List)):
            return [el.value for el in e.elements if not isinstance(el, cst.StarredElement)]
        if V.kind(self.w.value(e)) == "sequence":
            return []
        return [e]
