"""CL107: ``numpy.random`` calls that dynamo cannot trace."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.facts import Taint
from compilelint.static.analysis.walker import FileWalker
from compilelint.static.checks.base import Check, ScopedNames

# numpy.random functions, each with the position of its ``size`` argument; None: breaks always.
# Draws with a ``size`` are traced (as torch random ops); scalar draws break on the
# data-dependent Python number, and generator objects are not supported at all.
_RANDOM: dict[str, int | None] = {
    "default_rng": None,
    "RandomState": None,
    "Generator": None,
    "SeedSequence": None,
    "BitGenerator": None,
    "PCG64": None,
    "PCG64DXSM": None,
    "MT19937": None,
    "Philox": None,
    "SFC64": None,
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


# constructors of numpy generator objects: their methods are skipped by dynamo too
_OBJECTS = frozenset(k for k, v in _RANDOM.items() if v is None and k[:1].isupper()) | {
    "default_rng"
}
# the same, qualified: ``self.rng = np.random.default_rng(seed)`` in ``__init__``
_QUALIFIED = frozenset(f"numpy.random.{k}" for k in _OBJECTS)
_OBJECT: Taint = frozenset({"T"})
_NO_OBJECT: Taint = frozenset()


class NumpyUntraceable(Check):
    CODE = "CL107"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._objects = ScopedNames(walker)  # local names bound to a numpy generator object
        self._any = False  # whether this file binds any (most files: no table lookups)

    def _makes_object(self, e: cst.BaseExpression) -> bool:
        if not isinstance(e, cst.Call) or not isinstance(e.func, (cst.Name, cst.Attribute)):
            return False
        q = self.qualify(e.func) or ""
        return q.startswith("numpy.random.") and q[len("numpy.random.") :] in _OBJECTS

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._makes_object(node.value):
            self._any = True
            for t in node.targets:
                self._objects.bind(t.target, _OBJECT)
        elif self._any:  # a name re-bound to something else
            for t in node.targets:
                self._objects.bind(t.target, _NO_OBJECT)

    def visit_Call(self, node: cst.Call) -> None:
        # every call comes here: exact type tests (libcst's node classes are ABCs, whose
        # isinstance is a Python call when it fails) and the cheap refusals first
        func = node.func
        t = type(func)
        if (
            self._any
            and t is cst.Attribute
            and type(func.value) is cst.Name  # type: ignore[attr-defined]
            and self._objects.lookup(func.value.value)  # type: ignore[attr-defined]
        ):
            # `ss = np.random.SeedSequence(...)`, then `ss.generate_state(4)`: dynamo skips
            # numpy's generator methods ("Attempted to inline function marked as skipped")
            self.report(node, func=f"{func.value.value}.{func.attr.value}()")  # type: ignore[attr-defined]
            return
        if t is cst.Name:
            if func.value not in self.w.imports:  # type: ignore[attr-defined]
                return
        elif t is not cst.Attribute:
            return
        elif (
            type(func.value) is cst.Attribute  # type: ignore[attr-defined]
            and self.holds(func.value, _QUALIFIED)  # type: ignore[attr-defined]
        ):
            # `self.rng.integers(...)` where `__init__` made `self.rng` a numpy generator
            self.report(node, func=f"{self.code(func, 40)}()")
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
