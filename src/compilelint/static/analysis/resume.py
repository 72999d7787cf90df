"""Resuming the walk of an edited file where the edit begins (the editor server).

The walk of a module (``walker.analyze_module``) visits its top-level statements in order; what
it does at statement ``k`` is a function of the statements before ``k`` (through the state
they left in the walker, the checks and ``GuardUses``), of the module-wide pre-pass (the
walker's pre-declared top-level names, and every check's ``visit_Module``), and of the
statements from ``k`` on. So when an edit leaves the first ``k`` statements the same objects
(the server's ``IncrementalParser`` keeps unchanged statements as the same nodes) and the
pre-pass reads the same, the state before statement ``k`` is the state the previous walk had
there, and the walk can resume from it.

``WalkMemo`` keeps that state as a pickle taken just before the first statement the last edit
changed (the next edit usually falls there or later: typing stays in one place, and a later
place reuses the earlier state). Pickling copies the state's objects as they are (shared
references shared, dicts in their order, every value equal), with these exceptions, each handled
so that the copy behaves as the original:

- libcst nodes are not copied: the copy refers to the same node objects (they are immutable,
  and the statements before ``k`` are the same objects in the new module). The previous module
  object itself becomes the new module.
- objects that are module-level names of compilelint's modules and not plain values
  (``conds.UNKNOWN`` and ``conds.OBJECT``: a sentinel and an instance) are not copied either,
  so ``is`` tests against them keep their answers; plain values (strings, numbers, tuples,
  frozensets) are copied, and equal.
- tables keyed by the identity of a copied object (a call site, a function's facts) are
  ``ByIdentity`` maps, which key the copies again when they are loaded; tables keyed by
  ``id()`` of a libcst node stay valid, since the nodes are the same objects.
- a set's iteration order may differ in the copy. For sets of strings it already differs from
  process to process (string hashes are randomised), so nothing the walk reports depends on it;
  the state's sets of numbers (ids of nodes, CL304's reported points) are only asked for
  membership (read through on 2026-11-27: no loop over them).

What the walk reads of the module as a whole is compared, not assumed: the memo is keyed by the
pre-declared names, the classes whose ``forward`` returns a tuple (``Evaluator.
_own_module_forward``, computed before the walk when it resumes) and each ``visit_Module``
hook's ``module_signature`` (a check with a ``visit_Module`` hook and no signature turns the
memo off); ``tests/test_speed24f.py`` lists every place that reads the module object. Anything the pickle cannot copy (a closure, a lock)
gives no memo, and a full walk: the memo is an optimisation that can only be absent.

The statements *after* the edited ones are the subject of ``analysis.tail``: they are not walked
when what the edited statements leave for them is what the previous version's left there
(``WalkMemo.record``).
"""

from __future__ import annotations

import gc
import io
import pickle
import sys
import threading
import types
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import libcst as cst

K = TypeVar("K")
T = TypeVar("T")


class ByIdentity(dict[int, T], Generic[K, T]):
    """A table keyed by ``id()`` of objects that are not hashable, or whose equality is not
    their identity (a call site, a function's facts): read it with ``table.get(id(obj))``,
    write it with ``table.put(obj, value)``, which keeps the object alive (so its id stays
    its own) and lets a copy (pickle) key the copied objects. An entry written without
    ``put`` makes the table impossible to copy (``analysis.resume``: no memo, a full walk)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[int, K] = {}

    def put(self, key: K, value: T) -> None:
        self[id(key)] = value
        self.held[id(key)] = key

    def __reduce__(self) -> tuple[Any, ...]:
        held = self.held
        if any(i not in held for i in self):
            raise pickle.PicklingError("ByIdentity: an entry written without put()")
        return (_by_identity, ([(held[i], v) for i, v in self.items()],))


def _by_identity(items: list[tuple[K, T]]) -> ByIdentity[K, T]:
    out: ByIdentity[K, T] = ByIdentity()
    for k, v in items:
        out.put(k, v)
    return out


_GLOBALS: dict[int, object] = {}
_GLOBALS_FROM: set[str] = set()
# plain values (a copy is equal, and they are tested by equality), and what pickle writes as a
# reference already (functions, classes, modules)
_VALUES = (
    str,
    bytes,
    int,
    float,
    bool,
    type(None),
    tuple,
    frozenset,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
)


def _module_constants() -> dict[int, object]:
    """id -> object for the module-level names of compilelint's modules (and the members of
    those that are tuples, frozensets or dicts) that are not plain values (a sentinel
    ``object()``, an instance): copies of them would fail ``is`` tests. (A copy of a plain
    value, a string or a tuple of them, is equal to it, and the code tests them by equality.)"""
    if len(_GLOBALS_FROM) != sum(1 for n in sys.modules if n.startswith("compilelint")):
        for name, mod in list(sys.modules.items()):
            if mod is None or name in _GLOBALS_FROM or not name.startswith("compilelint"):
                continue
            _GLOBALS_FROM.add(name)
            for v in list(vars(mod).values()):
                members: Iterable[object] = ()
                if isinstance(v, (tuple, frozenset, list)):
                    members = v
                elif isinstance(v, dict):
                    members = v.values()
                for m in (v, *members):
                    if not isinstance(m, _VALUES):
                        _GLOBALS[id(m)] = m
    return _GLOBALS


class _Loading(threading.local):
    module: cst.Module | None = None
    nodes: list[cst.CSTNode] | None = None


_LOADING = _Loading()


def _node(i: int) -> cst.CSTNode:
    assert _LOADING.nodes is not None
    return _LOADING.nodes[i]


def _module() -> cst.Module:
    assert _LOADING.module is not None
    return _LOADING.module


def _constant(i: int) -> object:
    return _GLOBALS[i]


class _Pickler(pickle.Pickler):
    """``reducer_override`` is asked once per object that is not a plain value or a built-in
    container (libcst nodes, the state's own objects), after the pickle's memo: a node is
    written as its index in ``nodes``, the module being walked as the module being resumed,
    a module constant as itself."""

    def __init__(self, buf: io.BytesIO, module: cst.Module, nodes: list[cst.CSTNode]) -> None:
        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self._module = module
        self._nodes = nodes
        self._consts = _module_constants()

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, cst.CSTNode):
            if obj is self._module:
                return (_module, ())
            self._nodes.append(obj)
            return (_node, (len(self._nodes) - 1,))
        if self._consts.get(id(obj)) is obj:
            return (_constant, (id(obj),))
        return NotImplemented


@dataclass
class WalkMemo:
    """One file's resumable walk state (kept per file by ``IncrementalParser``)."""

    body: list[cst.CSTNode] = field(default_factory=list)  # the last walked module's statements
    key: Hashable = None  # path, module, checks and pre-pass the state was made under
    at: int = 0  # the state is the one before statement ``at``
    prefix: list[cst.CSTNode] = field(default_factory=list)  # statements before ``at``
    data: bytes | None = None
    nodes: list[cst.CSTNode] = field(default_factory=list)
    resumed: int = 0  # walks that resumed (statistics)
    skipped: int = 0  # top-level statements not walked again thanks to the memo
    full: int = 0  # walks from the start
    # ``evaluate._forward_classes``' answer per class statement of the last walked module
    forward: dict[int, tuple[cst.ClassDef, bool]] = field(default_factory=dict)
    # the last walk's tail after its edited statements (``analysis.tail.TailRecord``), or None
    record: Any = None
    tails: int = 0  # walks that took the statements after the edit from the last walk
    refused: int = 0  # walks that found a record for their tail and walked it (exports differ)
    skipped_tail: int = 0  # top-level statements after an edit not walked (``analysis.tail``)

    def first_changed(self, body: list[cst.CSTNode]) -> int:
        """The index of the first statement of ``body`` that is not the previous walk's."""
        old = self.body
        n = min(len(old), len(body))
        i = 0
        while i < n and body[i] is old[i]:
            i += 1
        return i

    def usable(self, key: Hashable, body: list[cst.CSTNode]) -> bool:
        at = self.at
        if self.data is None or key != self.key or at > len(body):
            return False
        prefix = self.prefix
        return all(body[i] is prefix[i] for i in range(at))

    def dump(self, state: object, module: cst.Module) -> tuple[bytes, list[cst.CSTNode]] | None:
        nodes: list[cst.CSTNode] = []
        buf = io.BytesIO()
        try:
            _Pickler(buf, module, nodes).dump(state)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError, ValueError):
            return None
        return buf.getvalue(), nodes

    def load(self, module: cst.Module) -> Any:
        assert self.data is not None
        _LOADING.module, _LOADING.nodes = module, self.nodes
        collecting = gc.isenabled()
        gc.disable()  # a load makes thousands of objects: no collection passes over them
        try:
            got = pickle.loads(self.data)
        finally:
            _LOADING.module = _LOADING.nodes = None
            if collecting:
                gc.enable()
        _freeze_loaded()
        return got


# Whether a load froze the process's objects (``_freeze_loaded``), until ``thaw`` moves them
# to the oldest generation.
_FROZEN: list[bool] = []


def _freeze_loaded() -> None:
    """Keep the state a load made (thousands of objects, most alive until the next edit's load
    replaces them) and everything older out of the young generations while the walk resumes:
    ``thaw`` (``walker.analyze_module`` calls it when the walk ends) moves them to the oldest
    generation, where they are not young objects any more. Young collections during the walk
    and after the scan passed over all of them, once or twice (about 2 ms of a 60 ms edit of
    a 2,000-line file). Nothing is freed later or sooner than by reference counting, and
    cycles among them are still collected, by the collections of the oldest generation. Not
    when something else has frozen objects (a process that forks workers): its permanent
    generation is left as it is."""
    if not _FROZEN and gc.get_freeze_count() == 0:
        gc.freeze()
        _FROZEN.append(True)


def thaw() -> None:
    """Move what ``_freeze_loaded`` froze to the oldest generation (``gc.unfreeze``), where the
    cyclic collector sees it again."""
    if _FROZEN:
        _FROZEN.clear()
        gc.unfreeze()
