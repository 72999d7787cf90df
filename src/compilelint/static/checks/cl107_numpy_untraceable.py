"""CL107: ``numpy.random`` calls that dynamo cannot trace."""

from __future__ import annotations

import libcst as cst

from compilelint.static.checks.base import Check

# numpy.random functions, each with the position of its ``size`` argument; None: breaks always.
# Draws with a ``size`` are traced (as torch random ops); scalar draws break on the
# data-dependent Python number, and generator objects are not supported at all.
_RANDOM: dict[str, int | None] = {
    "default_rng": None,
    "RandomState": None,
    "Generator": None,
    "permutation": None,
    "random": 0,
    "random_sample": 0,
    "ranf": 0,
    "sample": 0,
    "uniform": 2,
    "normal": 2,
    "randint": 2,
    "choice": 1,
}


class NumpyUntraceable(Check):
    CODE = "CL107"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return
        if isinstance(func, cst.Name) and func.value not in self.w.imports:
            return
        q = self.qualify(func)
        if q is None or not q.startswith("numpy.random."):
            return
        name = q[len("numpy.random.") :]
        if any(a.star for a in node.args):
            return
        if name in ("rand", "randn"):
            if not node.args:
                self.report(node, func=f"np.random.{name}()")
            return
        if name not in _RANDOM:
            return
        pos = _RANDOM[name]
        if pos is not None:
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) > pos or any(
                a.keyword is not None and a.keyword.value == "size" for a in node.args
            ):
                return  # an array draw: traced
        self.report(node, func=f"np.random.{name}()")
