"""Not walking the statements after an edited one when what it leaves for them is unchanged
(the editor server; ``analysis.resume`` resumes the walk *before* the edit, this skips the walk
*after* it).

The walk of a module is a function of the state each top-level statement leaves for the next.
Split that state (every attribute of the walker, of ``GuardUses`` and of each check) in three:

- **outputs** (``OUTPUTS``): what the walk writes and never reads (the candidate reports, the
  call sites and guard rows whose positions the post-pass fills, the statement of each
  reported node). Later statements cannot see what an earlier one put there.
- **private** entries: the rows of a table read only for the function being walked
  (``PRIVATE``: the checks' per-function and per-scope tables, keyed by the function's facts,
  its qualified name or its scopes) that belong to a function the edited statements define,
  and the entries of any table keyed by ``id()`` of one of the edited statements' own nodes
  (a memo of a node's value, a set of reported nodes): a later statement reaches them only
  through the node or while walking that function, and it does neither (a reference to an
  edited node anywhere else refuses the skip).
- **exports**: everything else, whatever it is; a table nobody listed is an export.

After walking the edited statements (the *region*: from the first statement the edit changed
to the first of the statements that end both versions as the same objects, the *tail*), the
exports are written as a canonical pickle per table (nodes outside the region by identity:
the tail's and the head's nodes are the same objects in both versions; sets sorted; tables
keyed by node ids sorted by key) and compared with the previous walk's at the same place. If
they are equal, the walk of the tail would read the same and do the same, so its effect on the
final state is the previous walk's: ``TailRecord`` keeps that effect on what
``analyze_module``'s post-pass and ``FileFacts`` read (``FINAL``) as a pickle of what the tail
added (list items, dict and set entries; the tail's own nodes by reference), and it is added to
this walk's state instead of walking the tail. A record is only made when the tail changed no
entry that existed before it in those tables (compared the same way) and none of what it added
refers to a function's or class's facts or call site from before it (a copy would not be the
object the post-pass writes positions into): otherwise the next edit walks on, as before.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from compilelint.static.analysis.resume import ByIdentity, _module, _module_constants, _node

# Written by the walk and read by it only in ways that the statements before do not change:
# ``analyze_module``'s post-pass reads them; during the walk, a check reads the reports of the
# function being walked (CL304's ``_scan_direct``: ``pending`` entries whose ``func`` is that
# function's name; CL119: the entry it just wrote) and ``len(pending)`` as a sequence number
# compared only with other sequence numbers of the same function (shifted alike when the
# statements before report more or less). ``tests/test_speed24n.py`` lists every read.
OUTPUTS: frozenset[tuple[str, str]] = frozenset(
    {
        ("walker", "pending"),
        ("walker", "call_nodes"),
        ("walker", "cond_calls"),
        ("walker", "closure_calls"),
        ("walker", "stmt_of"),
        ("walker", "jump_at"),
        ("GuardUses", "sites"),
    }
)

_FACTS = frozenset({("walker", "functions"), ("walker", "classes")})

# The facts of functions and classes: the post-pass writes positions into the objects (call
# sites) the walk made, so the tail's effect on these is taken as what it added, and a tail that
# changed an entry from before it makes no record. The other ``FINAL`` tables that are not
# outputs hold plain values: the tail's final value is taken whole.
ADDED_ONLY: frozenset[tuple[str, str]] = frozenset({("walker", "functions"), ("walker", "classes")})

# What ``analyze_module`` reads of the final state (its post-pass and ``FileFacts``): the tail's
# effect on these is what a skipped walk takes from the previous walk.
FINAL: tuple[tuple[str, str], ...] = (
    ("walker", "imports"),
    ("walker", "functions"),
    ("walker", "classes"),
    ("walker", "compiled_refs"),
    ("walker", "graph_op_sites"),
    ("walker", "module_calls"),
    ("walker", "script_refs"),
    ("walker", "all_names"),
    ("walker", "all_computed"),
    *sorted(OUTPUTS),
)

# Tables read only for the function (or scope) being walked: keyed by the function's facts
# (``ByIdentity``), its qualified name (a dict or a set of names, a set of ``(qual, name)``),
# or its scopes (``ScopedNames``). Each was read through on 2026-11-27: every read passes
# ``w.func``/``w.scope.facts`` or ``fn.qual`` of the function being walked, or walks the current
# scope's chain.
PRIVATE: frozenset[tuple[str, str]] = frozenset(
    {
        ("GuardUses", "_fns"),
        ("SizeAcrossGraphBreak", "_fns"),
        ("ModuleBuiltInCompiledCode", "_super_init"),
        ("ModuleBuiltInCompiledCode", "_done"),
        ("ParameterCreatedInForward", "_seen"),
        ("RequiresGradChange", "_created"),
        ("TensorNumpy", "_arrays"),
        ("NumpyUntraceable", "_objects"),
        ("TensorDataPtr", "_ptrs"),
        ("BooleanMaskIndexing", "_masks"),
        ("ShapeDependentBranch", "_sizes"),
        ("TensorDataAssignment", "_created"),
        ("SkippedModuleCall", "_layouts"),
        ("HookRegistrationInForward", "_handles"),
    }
)

# not state: the walker and its bound methods held by the checks, the hooks, the module, and a
# memo of a function of the node alone (``FileWalker.qualify``'s dotted names)
IGNORED: frozenset[str] = frozenset({"w", "qualify", "taint", "hooks", "module", "_dotted"})


class RegionRef(Exception):
    """An export refers to one of the edited statements' nodes, or cannot be written (a
    ``ByIdentity`` entry written without ``put``): no comparison."""


def owners(walker: Any, uses: Any) -> list[tuple[str, Any]]:
    """The objects whose attributes make the walk's state, by name: the walker, the guard uses
    and each check (by class name; the hooks hold each check once)."""
    out: list[tuple[str, Any]] = [("walker", walker), ("GuardUses", uses)]
    seen = {id(walker), id(uses)}
    for hs in walker.hooks.values():
        for h in hs:
            o = getattr(h, "__self__", None)
            if o is not None and id(o) not in seen:
                seen.add(id(o))
                out.append((type(o).__name__, o))
    return out


# fields of libcst nodes that hold only layout (whitespace, brackets, commas, operators,
# keywords): no table keys their nodes (a table keyed by one would only refuse the skip, its
# key being another node's id in each version)
_LAYOUT = (
    "whitespace",
    "lpar",
    "rpar",
    "comma",
    "semicolon",
    "colon",
    "leading_lines",
    "lines_after",
    "header",
    "footer",
    "newline",
    "equal",
    "dot",
    "trailing",
    "lbracket",
    "rbracket",
    "lbrace",
    "rbrace",
    "asynchronous",
    "operator",
    "arrow",
    "star",
)
# the node types those fields hold (a node of these types is never a table's key or an output's
# node: ``take_tail`` refuses a record whose additions refer to one, not knowing whether it is
# one of the edited statements')
_LAYOUT_TYPES: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.AssignEqual,
    cst.Asynchronous,
    cst.BaseBinaryOp,
    cst.BaseUnaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
)
_NOT_LAYOUT = frozenset({"star_arg", "star_kwarg", "start"})  # named like layout, are not
_FIELDS: dict[tuple[type, bool], tuple[str, ...]] = {}


def _fields(t: type, layout: bool) -> tuple[str, ...]:
    got = tuple(
        f.name
        for f in dataclasses.fields(t)  # type: ignore[arg-type]
        if layout or not f.name.startswith(_LAYOUT) or f.name in _NOT_LAYOUT
    )
    _FIELDS[(t, layout)] = got
    return got


def region_ids(stmts: Iterable[cst.CSTNode], layout: bool = False) -> set[int]:
    """Ids of the nodes of the edited statements; ``layout``: those of whitespace, brackets,
    commas and operators too (the check of what a record refers to needs every node; a
    comparison that misses one only refuses: the node's id differs between the versions)."""
    out: set[int] = set()
    add = out.add
    stack: list[cst.CSTNode] = list(stmts)
    node_type = cst.CSTNode
    fields = _FIELDS
    while stack:
        n = stack.pop()
        add(id(n))
        t = type(n)
        for f in fields.get((t, layout)) or _fields(t, layout):
            v = getattr(n, f)
            if isinstance(v, node_type):
                stack.append(v)
            elif type(v) is tuple or type(v) is list:
                stack.extend(x for x in v if isinstance(x, node_type))
    return out


class _Canonical(pickle.Pickler):
    def __init__(
        self,
        buf: io.BytesIO,
        region: set[int],
        consts: dict[int, object],
        facts: dict[int, tuple[str, str, object]],
    ) -> None:
        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self._region = region
        self._consts = consts
        self._facts = facts

    def reducer_override(self, obj: Any) -> Any:
        got = self._facts.get(id(obj))
        if got is not None and got[2] is obj:
            # a function's or class's facts, by name: their value is compared in
            # ``walker.functions`` and ``walker.classes``
            return (tuple, ((got[0], got[1]),))
        if isinstance(obj, cst.CSTNode):
            if id(obj) in self._region:
                raise RegionRef
            return (tuple, (("node", id(obj)),))  # the head's and tail's nodes: the same objects
        if self._consts.get(id(obj)) is obj:
            return (tuple, (("constant", id(obj)),))
        if isinstance(obj, ByIdentity):
            return (list, ([(obj.held[i], v) for i, v in obj.items()],))
        if isinstance(obj, (set, frozenset)):
            return (list, (_sorted(obj),))
        return NotImplemented


def _sorted(items: Iterable[Any]) -> list[Any]:
    got = list(items)
    try:
        return sorted(got)
    except TypeError:
        return sorted(got, key=repr)


def made_in(walker: Any, had: tuple[int, int]) -> frozenset[str]:
    """The functions and classes the edited statements defined: those added to the walker's
    tables since they held ``had`` (their lengths before)."""
    return frozenset([*list(walker.functions)[had[0] :], *list(walker.classes)[had[1] :]])


def _qual_of(key: Any) -> str | None:
    """The qualified name a private table's key stands for (a function's facts, a scope, a
    name, a ``(qual, name)``)."""
    if isinstance(key, str):
        return key
    if isinstance(key, tuple) and key and isinstance(key[0], str):
        return key[0]
    if getattr(key, "class_qual", ""):  # a class body's scope
        return str(key.class_qual)
    facts = getattr(key, "facts", key)  # a function's scope, or its facts
    return getattr(facts, "qual", None)


def _without_region(value: Any, region: set[int], quals: frozenset[str], private: bool) -> Any:
    """``value`` less its entries keyed by the region's nodes (any table) or, for a private
    table, by the region's functions; sets and tables keyed by node ids in a canonical order."""
    if private:
        if isinstance(value, ByIdentity):
            return [
                (value.held[i], v) for i, v in value.items() if _qual_of(value.held[i]) not in quals
            ]
        tables = getattr(value, "_tables", None)
        if isinstance(tables, dict):  # ScopedNames: keyed by scope
            return [(s, v) for s, v in tables.items() if _qual_of(s) not in quals]
        if isinstance(value, dict):
            return [(k, v) for k, v in value.items() if _qual_of(k) not in quals]
        if isinstance(value, (set, frozenset)):
            return _sorted(k for k in value if _qual_of(k) not in quals)
    if isinstance(value, ByIdentity):  # keyed by copies: by its keys' values, in order
        return [(value.held[i], v) for i, v in value.items()]
    if isinstance(value, dict) and value and type(next(iter(value))) is int:
        # in the order written (the head's entries are the memo's, in its order)
        return [(k, v) for k, v in value.items() if k not in region]
    if isinstance(value, (set, frozenset)) and value and type(next(iter(value))) is int:
        return sorted(k for k in value if k not in region)
    if isinstance(value, (set, frozenset)):
        return _sorted(value)
    return value


def digest(
    walker: Any,
    uses: Any,
    region: set[int],
    quals: frozenset[str],
    only: dict[tuple[str, str], Any] | None = None,
) -> dict[tuple[str, str], bytes]:
    """The exports, as a canonical pickle per table (``RegionRef`` when one refers to a node of
    the region). ``only``: the tables to write, each as the given value instead of the
    attribute's (the restricted tables of ``TailRecord``)."""
    out: dict[tuple[str, str], bytes] = {}
    consts = _module_constants()
    facts: dict[int, tuple[str, str, object]] = {
        id(f): ("function", q, f) for q, f in walker.functions.items()
    }
    facts.update((id(c), ("class", q, c)) for q, c in walker.classes.items())
    for name, obj in owners(walker, uses):
        for attr, value in vars(obj).items():
            key = (name, attr)
            if attr in IGNORED or key in OUTPUTS:
                continue
            if only is not None:
                if key not in only:
                    continue
                value = only[key]
            buf = io.BytesIO()
            by_name = {} if key in _FACTS else facts
            try:
                value = _without_region(value, region, quals, key in PRIVATE)
                _Canonical(buf, region, consts, by_name).dump(value)
            except RegionRef:
                raise
            except (
                KeyError,
                pickle.PicklingError,
                TypeError,
                AttributeError,
                RecursionError,
                ValueError,
            ) as exc:
                raise RegionRef from exc
            out[key] = buf.getvalue()
    return out


def _attr(walker: Any, uses: Any, key: tuple[str, str]) -> Any:
    return getattr(walker if key[0] == "walker" else uses, key[1])


def marks(walker: Any, uses: Any) -> dict[tuple[str, str], Any]:
    """Where each ``FINAL`` table stands before the tail: a list's length, a dict's keys, a set's
    elements, a scalar's value."""
    out: dict[tuple[str, str], Any] = {}
    for key in FINAL:
        v = _attr(walker, uses, key)
        if isinstance(v, list):
            out[key] = len(v)
        elif isinstance(v, dict):
            out[key] = list(v)
        elif isinstance(v, set):
            out[key] = set(v)
        else:
            out[key] = v
    return out


def _restricted(value: Any, mark: Any) -> Any:
    """``value`` as it would be had nothing been added after ``mark``."""
    if isinstance(value, list) and isinstance(mark, int):
        return value[:mark]
    if isinstance(value, dict) and isinstance(mark, list):
        return {k: value[k] for k in mark if k in value}
    if isinstance(value, set) and isinstance(mark, set):
        return value & mark
    return value


class _Missing:
    pass


def _added(value: Any, mark: Any) -> Any:
    """What was added to ``value`` after ``mark`` (``_Missing`` when it was not only added to:
    an entry taken away, a scalar changed)."""
    if isinstance(value, list) and isinstance(mark, int):
        return value[mark:] if len(value) >= mark else _Missing
    if isinstance(value, dict) and isinstance(mark, list):
        if len(value) < len(mark) or any(k not in value for k in mark):
            return _Missing
        old = set(mark)
        return [(k, v) for k, v in value.items() if k not in old]
    if isinstance(value, set) and isinstance(mark, set):
        return list(value - mark) if mark <= value else _Missing
    return None if value == mark else _Missing


class _DeltaPickler(pickle.Pickler):
    """Writes the tail's additions: its nodes by reference (the next version holds the same
    objects), the module as the module being walked, compilelint's constants as themselves; an
    object the tail did not make that the post-pass writes into (facts and call sites from
    before the tail), or a node of the region, cannot be written."""

    def __init__(
        self, buf: io.BytesIO, module: cst.Module, before: set[int], region: set[int]
    ) -> None:
        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self._module = module
        self._before = before
        self._region = region
        self.nodes: list[cst.CSTNode] = []
        self._consts = _module_constants()

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, cst.CSTNode):
            if obj is self._module:
                return (_module, ())
            if id(obj) in self._region or isinstance(obj, _LAYOUT_TYPES):
                raise pickle.PicklingError("a node of the region, or a layout node")
            self.nodes.append(obj)
            return (_node, (len(self.nodes) - 1,))
        if id(obj) in self._before:
            raise pickle.PicklingError("an object from before the tail")
        if self._consts.get(id(obj)) is obj:
            return (_const, (id(obj),))
        return NotImplemented


def _const(i: int) -> object:
    return _module_constants()[i]


@dataclass
class TailRecord:
    """What the last walk that walked its tail left: the ``FINAL`` tables at its end (a pickle,
    its nodes by reference), where each of them stood before each statement of its tail
    (``marks``, by statement), and the exports its edited statements (or, after a walk that
    took its tail from here, that walk's) left."""

    key: Hashable = None
    final: bytes = b""
    nodes: list[cst.CSTNode] = field(default_factory=list)
    # id of a statement of the tail -> (the statement, the marks before it, its index)
    marks: dict[int, tuple[cst.CSTNode, dict[tuple[str, str], Any], int]] = field(
        default_factory=dict
    )
    start: int = 0  # the edited statements of the walk that left ``exports``
    region: list[cst.CSTNode] = field(default_factory=list)
    exports: dict[tuple[str, str], bytes] | None = None
    region_ids: set[int] = field(default_factory=set)  # ``region_ids(region)``
    used: int = 0  # walks that took their tail from the record (statistics)
    refused: int = 0  # walks whose exports differed, or whose tail was not only additions

    body: list[cst.CSTNode] = field(default_factory=list)  # the recorded walk's statements
    # id of a statement of the tail -> (the statement, ``take_tail``'s answer from there as a
    # pickle, its nodes)
    taken: dict[int, tuple[cst.CSTNode, bytes, list[cst.CSTNode]]] = field(default_factory=dict)

    def mark(
        self, stmt: cst.CSTNode, tail: list[cst.CSTNode] | None = None
    ) -> dict[tuple[str, str], Any] | None:
        """Where the ``FINAL`` tables stood before ``stmt`` in the recorded walk, when it walked
        ``stmt`` and, from there, the statements ``tail`` (the same objects) to its end."""
        got = self.marks.get(id(stmt))
        if got is None or got[0] is not stmt:
            return None
        if tail is not None:
            at = got[2]
            body = self.body
            if len(body) - at != len(tail) or not all(
                a is b for a, b in zip(body[at:], tail, strict=True)
            ):
                return None
        return got[1]

    def exports_for(
        self, start: int, region: list[cst.CSTNode]
    ) -> dict[tuple[str, str], bytes] | None:
        """The recorded exports when they are those of ``region`` at ``start``."""
        r = self.region
        if self.exports is None or start != self.start or len(r) != len(region):
            return None
        return self.exports if all(a is b for a, b in zip(r, region, strict=True)) else None


def dump_final(
    walker: Any, uses: Any, module: cst.Module
) -> tuple[bytes, list[cst.CSTNode]] | None:
    """The ``FINAL`` tables at the end of a walk, as a pickle (nodes by reference)."""
    from compilelint.static.analysis.resume import _Pickler

    nodes: list[cst.CSTNode] = []
    buf = io.BytesIO()
    try:
        _Pickler(buf, module, nodes).dump({key: _attr(walker, uses, key) for key in FINAL})
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError, ValueError):
        return None
    return buf.getvalue(), nodes


def _loads(data: bytes, nodes: list[cst.CSTNode], module: cst.Module) -> Any:
    from compilelint.static.analysis import resume

    resume._LOADING.module, resume._LOADING.nodes = module, nodes
    try:
        return pickle.loads(data)
    finally:
        resume._LOADING.module = resume._LOADING.nodes = None


def differs(key: tuple[str, str], recorded: Any, current: Any) -> bool:
    """Whether a ``FINAL`` table's entries from before the tail, as the recorded walk left
    them, differ from this walk's (by value)."""
    return bool(recorded != current)


def take_tail(
    record: TailRecord,
    first: cst.CSTNode,
    tail: list[cst.CSTNode],
    module: cst.Module,
    walker: Any,
    uses: Any,
    old_ids: set[int],
) -> dict[tuple[str, str], tuple[str, Any]] | None:
    """What the recorded walk's statements from ``first`` on (``tail``, the same objects) did
    to the ``FINAL`` tables, as
    fresh objects: the entries they added to the outputs and to the facts, and the final value
    of the other tables (plain values). None when they did more than add to the facts (changed
    an entry from before ``first``: it differs from this walk's, whose exports there are the
    recorded walk's) or
    what they added refers to facts or call sites from before ``first`` or to a node of the
    previous version's edited statements (``old_ids``, ``region_ids``' without layout nodes;
    a layout node refuses too)."""
    m = record.mark(first, tail)
    if m is None:
        return None
    got = record.taken.get(id(first))
    if got is not None and got[0] is first:
        # found for this statement before (an edit at the same place): what the checks
        # below found holds of the recorded walk alone, the same this time
        return _loads(got[1], got[2], module)
    final = _loads(record.final, record.nodes, module)
    out: dict[tuple[str, str], tuple[str, Any]] = {}
    restricted: dict[tuple[str, str], Any] = {}
    for key in FINAL:
        value = final[key]
        if key not in OUTPUTS and key not in ADDED_ONLY:
            out[key] = ("whole", value)
            continue
        got = _added(value, m[key])
        if got is _Missing:
            return None
        out[key] = ("added", got)
        if key in ADDED_ONLY:
            restricted[key] = _restricted(value, m[key])
    # the facts from before ``first`` as the recorded walk left them, against this walk's (whose
    # exports, these among them, equal the recorded walk's there): by value (a copy's sets
    # need not iterate in the original's order)
    for key, value in restricted.items():
        if differs(key, value, _attr(walker, uses, key)):
            return None
    old: set[int] = set()
    fns, classes = final[("walker", "functions")], final[("walker", "classes")]
    for q in m[("walker", "functions")]:
        fn = fns.get(q)
        if fn is not None:
            old.add(id(fn))
            old.update(id(c) for c in fn.calls)
    old.update(id(classes[q]) for q in m[("walker", "classes")] if q in classes)
    buf = io.BytesIO()
    p = _DeltaPickler(buf, module, old, old_ids)
    try:
        p.dump(out)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError, ValueError):
        return None
    record.taken[id(first)] = (first, buf.getvalue(), p.nodes)
    return out


def apply_tail(walker: Any, uses: Any, tail: dict[tuple[str, str], tuple[str, Any]]) -> None:
    """Add what ``take_tail`` found to this walk's ``FINAL`` tables."""
    for key, (how, got) in tail.items():
        owner = walker if key[0] == "walker" else uses
        if how == "whole":
            setattr(owner, key[1], got)
            continue
        target = getattr(owner, key[1])
        if isinstance(target, list):
            target.extend(got)
        elif isinstance(target, (dict, set)):
            target.update(got)
