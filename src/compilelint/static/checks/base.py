"""The base class every check derives from, and the registry that finds them.

A check is one small class pointing at one catalogue code. It defines ``visit_<Node>`` methods
named after libcst node types; the engine batches every check's hooks into one walk. The hard
questions (is this code traced? is this value a tensor?) live in the shared analyses, exposed
through ``self.w`` (the :class:`FileWalker`).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, ClassVar, Generic, TypedDict, TypeVar

import libcst as cst

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import NO_TAINT, Taint
from compilelint.static.analysis.walker import FileWalker, Hook, Scope


class Branch(TypedDict, total=False):
    """The argument :meth:`Check.diagnostic_branch` adds to a finding's."""

    guarded: str


class Check:
    CODE: ClassVar[str] = ""

    def __init__(self, walker: FileWalker) -> None:
        self.w = walker
        # the walker's own methods, without a frame of this class's per call (the checks ask
        # ``qualify`` about 8,000 times per walk of a 2,000-line file)
        self.qualify = walker.qualify  # type: ignore[method-assign]
        self.taint = walker.taint  # type: ignore[method-assign]

    def report(
        self,
        node: cst.CSTNode,
        *,
        requires: Taint = NO_TAINT,
        scope: str = "traced",
        **args: str,
    ) -> None:
        self.w.report(self.CODE, node, requires=requires, scope=scope, **args)

    # helpers every check needs -----------------------------------------------------------
    def taint(self, node: cst.BaseExpression) -> Taint:
        return self.w.taint(node)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        return self.w.qualify(node)

    def code(self, node: cst.CSTNode, limit: int = 60) -> str:
        return self.w.code_for(node, limit)

    def holds(self, expr: cst.BaseExpression, kinds: frozenset[str]) -> bool:
        """Whether ``expr`` holds an object made by a call of one of ``kinds`` (qualified
        names): a local, a module-level variable or ``self.<attr>`` assigned
        ``threading.Lock()``, ``ContextVar(...)``, ``np.random.default_rng(seed)``..."""
        value = self.w.value(expr)
        if isinstance(expr, cst.Name) and self.w.lookup(expr.value) is None:
            # a module-level variable read in a method (class bodies do not see module scope)
            value = self.w.module_scope.env.get(expr.value, value)
        for m in V.members(value):
            if m[0] != "Y":
                continue
            src = m[1]
            if src.startswith("R|D|") and src[4:] in kinds:
                return True
            if src.startswith("A|"):
                cq, _, attr = src[2:].rpartition("|")
                cf = self.w.classes.get(cq)
                for v in cf.attrs.get(attr, ()) if cf is not None else ():
                    if any(x[0] == "Y" and x[1][4:] in kinds for x in V.members(v)):
                        return True
        return False

    def diagnostic_branch(self) -> Branch:
        """For a diagnostic (a warning, a log record): ``{"guarded": "1"}`` when it sits in a
        branch of its function (an ``if``/``else`` body, an ``except`` handler). A library warns
        there on inputs it considers unusual; library mode, which judges its entry points as a
        user first calls them, leaves it latent (``Project.kept``)."""
        return {"guarded": "1"} if self.w.branch_depth else {}


_T = TypeVar("_T")


class ScopedTable(Generic[_T]):
    """A check's own per-scope table of local names with a property (the layout of the tensor
    it is bound to and the call that made it, the hook method whose handle it holds), keyed
    like the walker's scopes: ``get`` gives the innermost binding's entry, None for a name
    rebound to something else or shadowed by an inner scope's variable. Only scopes that bound
    one get a table (the editor server's tail comparison reads these tables, see
    ``analysis.tail.PRIVATE``)."""

    def __init__(self, walker: FileWalker) -> None:
        self.w = walker
        # keyed by the scope itself (it hashes by identity), which the table holds: a table
        # keyed by its id would give a later scope made at a freed one's address its names
        self._tables: dict[Scope, dict[str, _T]] = {}

    def __bool__(self) -> bool:
        """Whether any scope bound a name (most files: none, and no lookups)."""
        return bool(self._tables)

    def get(self, name: str) -> _T | None:
        s = self.w.scope
        while s is not None:
            got = self._tables.get(s)
            if got is not None and name in got:
                return got[name]
            if name in s.env:
                return None
            s = s.parent
        return None

    def put(self, target: cst.BaseExpression, entry: _T | None) -> None:
        """Record ``entry`` for a plain-name assignment target in the current scope, or
        forget the name there (None)."""
        if not isinstance(target, cst.Name):
            return
        if entry is not None:
            self._tables.setdefault(self.w.scope, {})[target.value] = entry
        else:
            table = self._tables.get(self.w.scope)
            if table:
                table.pop(target.value, None)

    def drop(self, name: str) -> None:
        """Forget ``name`` in every scope (its first use was reported)."""
        for table in self._tables.values():
            table.pop(name, None)


class ScopedNames(ScopedTable[Taint]):
    """A check's own per-scope table of local names with a property held as a taint (an
    ndarray made from a tensor, a data pointer, a boolean mask): :class:`ScopedTable` whose
    absent entry is ``NO_TAINT`` and whose empty taint forgets the name."""

    def lookup(self, name: str) -> Taint:
        got = self.get(name)
        return NO_TAINT if got is None else got

    def bind(self, target: cst.BaseExpression, taint: Taint) -> None:
        """Record (or forget) a plain-name assignment target in the current scope."""
        self.put(target, taint or None)


_REGISTRY: dict[str, type[Check]] = {}


def all_checks() -> dict[str, type[Check]]:
    """Every check class in :mod:`compilelint.static.checks`, by code."""
    if not _REGISTRY:
        import compilelint.static.checks as pkg

        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            if info.name == "base":
                continue
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for obj in vars(mod).values():
                if isinstance(obj, type) and issubclass(obj, Check) and obj is not Check:
                    if obj.CODE in _REGISTRY and _REGISTRY[obj.CODE] is not obj:
                        raise RuntimeError(f"two checks claim {obj.CODE}")
                    if obj.CODE:
                        _REGISTRY[obj.CODE] = obj
    return dict(_REGISTRY)


_HOOK_NAMES: dict[type, tuple[tuple[str, Any], ...]] = {}


def _hook_names(cls: type[Check]) -> tuple[tuple[str, Any], ...]:
    """(method name, libcst node type) of a check's ``visit_<Node>`` hooks, found once per class
    (``dir()`` on every class for every file cost 15% of a scan of small files)."""
    got = _HOOK_NAMES.get(cls)
    if got is None:
        found = []
        for attr in dir(cls):
            if attr.startswith("visit_"):
                node_type: Any = getattr(cst, attr[6:], None)
                if node_type is None:
                    raise RuntimeError(f"{cls.__name__}.{attr}: no libcst node {attr[6:]}")
                found.append((attr, node_type))
        got = _HOOK_NAMES[cls] = tuple(found)
    return got


def build_hooks(walker: FileWalker, checks: list[type[Check]]) -> dict[type, list[Hook]]:
    hooks: dict[type, list[Hook]] = {}
    for cls in checks:
        inst = cls(walker)
        for attr, node_type in _hook_names(cls):
            hooks.setdefault(node_type, []).append(getattr(inst, attr))
    return hooks
