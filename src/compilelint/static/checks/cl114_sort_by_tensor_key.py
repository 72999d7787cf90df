"""CL114: ``sorted``/``min``/``max``/``list.sort`` with a ``key=`` over tensors."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.checks.base import Check

_BUILTINS = frozenset({"sorted", "min", "max"})


class SortByTensorKey(Check):
    CODE = "CL114"

    def visit_Call(self, node: cst.Call) -> None:
        key = next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "key"), None
        )
        if key is None:
            return
        func = node.func
        items: cst.BaseExpression | None = None
        if (
            isinstance(func, cst.Name)
            and func.value in _BUILTINS
            and not self.w.shadowed(func.value)
        ):
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) == 1:
                items = positional[0].value
        elif isinstance(func, cst.Attribute) and func.attr.value == "sort":
            items = func.value
        if items is None or (isinstance(key.value, cst.Name) and key.value.value == "len"):
            return
        elem = V.iter_elem(self.w.value(items))
        taint = V.sources(elem)
        if not taint:
            taint = self._zipped(items, key.value)
        j = _item_index(key.value)
        if not taint and j is not None:
            # a list of tuples (`(score, tokens)` hypotheses) ordered by one field
            taint = V.sources(V.element(elem, j))
        if not taint:
            taint = self._indexed_key(key.value)
        if taint and not self._static_key(key.value):
            self.report(node, requires=taint, expr=self.code(node))

    def _indexed_key(self, key: cst.BaseExpression) -> frozenset[str]:
        """``key=lambda i: t[i]`` (or ``key=t.__getitem__``): the key is an element of a tensor
        the elements index (``max(range(len(t)), key=lambda i: t[i])``), a 0-d tensor."""
        if isinstance(key, cst.Attribute) and key.attr.value == "__getitem__":
            return frozenset(V.sources(self.w.value(key.value)))
        if not (
            isinstance(key, cst.Lambda)
            and len(key.params.params) == 1
            and isinstance(key.body, cst.Subscript)
            and isinstance(key.body.value, cst.Name)
            and key.body.value.value != key.params.params[0].name.value
        ):
            return frozenset()
        return frozenset(V.sources(self.w.value(key.body.value)))

    def _zipped(self, items: cst.BaseExpression, key: cst.BaseExpression) -> frozenset[str]:
        """``sorted(zip(scores, boxes), key=lambda p: p[0])``: the tuples hold tensors; with
        ``p[j]`` the key is the ``j``-th sequence's element."""
        if not (
            isinstance(items, cst.Call)
            and isinstance(items.func, cst.Name)
            and items.func.value == "zip"
            and not self.w.shadowed("zip")
            and items.args
            and all(a.keyword is None and not a.star for a in items.args)
        ):
            return frozenset()
        args = [a.value for a in items.args]
        j = _item_index(key)
        if j is not None:
            args = args[j : j + 1]
        out: frozenset[str] = frozenset()
        for a in args:
            out |= frozenset(V.sources(V.iter_elem(self.w.value(a))))
        return out

    @staticmethod
    def _static_key(key: cst.BaseExpression) -> bool:
        """``key=lambda t: t.shape[0]`` / ``t.numel()``: a key from sizes is a Python int."""
        if not isinstance(key, cst.Lambda):
            return False
        body = key.body
        if isinstance(body, cst.Subscript):
            body = body.value
        if isinstance(body, cst.Attribute):
            return body.attr.value in ("shape", "ndim", "dtype", "device")
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Attribute):
            return body.func.attr.value in ("size", "dim", "numel")
        return False


def _item_index(key: cst.BaseExpression) -> int | None:
    """``j`` of ``key=lambda p: p[j]``."""
    if (
        isinstance(key, cst.Lambda)
        and len(key.params.params) == 1
        and isinstance(key.body, cst.Subscript)
        and isinstance(key.body.value, cst.Name)
        and key.body.value.value == key.params.params[0].name.value
        and len(key.body.slice) == 1
        and isinstance(key.body.slice[0].slice, cst.Index)
        and isinstance(key.body.slice[0].slice.value, cst.Integer)
    ):
        return int(key.body.slice[0].slice.value.value)
    return None
