"""Recompiles from the guards torch installs on the call's inputs: dynamo's cache simulated over
the spec's calls (:func:`predict_recompiles`). Each argument is guarded the way its variable
tracker is (a constant on its value, ``None`` vs a tensor, a tensor on its dtype and sizes, a
number on its value until automatic dynamic makes it a symbol); a number handed to a callee is
guarded where the callee reads it (:func:`_handed_rows`), a bool attribute where a branch reads
it (:func:`_bound_attr_branches`), a dict argument on the keys the frame reads.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compilelint.static.analysis.bindings import key_of
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import (
    class_node,
    function_node,
    installed,
    own_nodes,
    parsed_tree,
)
from compilelint.static.predict.prediction import (
    DEFAULT,
    RECOMPILE_LIMIT,
    Abstract,
    BreakSite,
    FKey,
    PredictedRecompile,
    _bind,
    _distinct_tensor_calls,
)
from compilelint.static.predict.recompiles.fixes import _FIX, _TYPE_GUARD, _kind_of
from compilelint.static.predict.recompiles.loops import _guarding_read_line
from compilelint.static.predict.recompiles.numbers import _number_recompiles


@dataclass
class _Param:
    name: str
    rows: list[list[Any]]
    dims: dict[int, list[list[Any]]] = field(default_factory=dict)  # sizes read as ints
    keys: dict[str, int] | None = None  # a dict argument's keys traced code reads: their lines
    indexes: int | None = None  # the line where it first indexes a module container

    def dim_rows(self, d: int, rank: int) -> list[list[Any]]:
        return self.dims.get(d, []) + self.dims.get(d - rank, [])

    def dim_specialized(self, d: int, rank: int) -> bool:
        return any(r[1] == "specialize" for r in self.dim_rows(d, rank))

    @property
    def used(self) -> bool:
        """Whether traced code reads the parameter: a literal default (its ``"default"`` row)
        is no read, and dynamo installs no guard on an argument it never reads (torch 2.13: a
        flag passed for API compatibility, ``output_attentions=True``, recompiles nothing)."""
        return any(r[1] != "default" for r in self.rows)

    @property
    def specialized(self) -> bool:
        return self.indexes is not None or any(r[1] == "specialize" for r in self.rows)

    @property
    def first_use(self) -> int | None:
        """The line of the first read (its ``"use"`` row), when :meth:`where` falls to it."""
        if any(r[1] in ("specialize", "branch") and r[2] for r in self.rows):
            return None
        return next((int(r[2]) for r in self.rows if r[1] == "use" and r[2]), None)

    def line(self, fallback: int) -> int:
        return self.where("", fallback)[1]

    def where(self, path: str, fallback: int) -> tuple[str, int]:
        """The file and line of the guard: a row inherited from a callee the parameter is
        handed to (:func:`_handed_rows`) carries the callee's file as its sixth element."""
        for kind in ("specialize", "branch", "use"):
            for r in self.rows:
                if r[1] == kind and r[2]:
                    return (str(r[5]) if len(r) > 5 else path), int(r[2])
        return path, fallback


def _handed_rows(
    project: Project, key: FKey, name: str, rows: Sequence[list[Any]], depth: int = 0
) -> list[list[Any]] | None:
    """The guard rows of parameter ``name`` of ``key`` when traced code only hands it on
    unchanged to a user function before anything else reads it (``inner(z, scale, flag)``):
    dynamo inlines the callee and guards the value where the callee first reads it (torch 2.13:
    ``scale == 1.0  # return y * scale`` in ``inner``), so the callee parameter's rows, each
    with the callee's file as a sixth element (recursively, four calls deep; not into an
    installed package, where torch names the user's calling line). None when the
    parameter is specialised or tested in ``key`` itself, or its first read is not such a
    hand-over (an argument of a torch op, arithmetic, a call that is not resolved)."""
    if depth > 3 or any(r[1] in ("specialize", "branch") for r in rows):
        return None
    uses = [int(r[2]) for r in rows if r[1] == "use" and r[2]]
    if not uses:
        return None
    first = min(uses)
    fn = project.fn(key)
    here = f"P|{key[1]}|{name}"
    sites = [c for c in fn.calls if c.line == first and here in c.fwd.values()]
    if len(sites) != 1:
        return None
    site = sites[0]
    target = project.call_target(key[0], site.ref)
    if target is None or project.opaque_to_dynamo(target[0]):
        return None
    resolved = project.resolve(key[0], site.ref)
    if resolved is not None and resolved[2] == "class":
        # an object built in traced code: dynamo guards the constructor's arguments where the
        # object is built, whatever ``__init__`` does with them (torch 2.13: ``top_k == 4  #
        # warper = TopKLogitsWarper(top_k=top_k)``; the same for a class that only stores it)
        return None
    (cpath, cqual), implicit = target
    if installed(cpath):
        # torch names a guard realised in an installed package by the user's line that
        # called into it (the dynamic stage's user frame): the hand-over's own line
        return None
    callee = project.fn((cpath, cqual))
    slot = next(k for k, v in site.fwd.items() if v == here)
    if slot.isdigit():
        pos = [p for p in callee.params if p.index >= 0]
        i = int(slot) + implicit
        if i >= len(pos):
            return None
        cname = pos[i].name
    elif any(p.name == slot for p in callee.params):
        cname = slot
    else:
        return None
    crows = [list(r) for r in callee.guards if r[0] == cname and r[1] != "default"]
    deeper = _handed_rows(project, (cpath, cqual), cname, crows, depth + 1)
    if deeper is not None:
        return deeper
    if not any(r[1] in ("specialize", "branch", "use") and r[2] for r in crows):
        return []  # the callee never reads it: nothing guards it
    return [[*r[:5], cpath] if len(r) <= 5 else r for r in crows]


def _fmt(v: Any) -> str:
    return repr(v)


class _Entry:
    """One compiled cache entry: the guards it installed, per argument."""

    def __init__(
        self,
        values: Mapping[str, Abstract],
        dynamic: Mapping[str, Any],
        params: Mapping[str, _Param],
    ) -> None:
        self.values = dict(values)
        self.dynamic = {k: (set(v) if isinstance(v, set) else v) for k, v in dynamic.items()}
        self.params = params

    def failing(self, values: Mapping[str, Abstract]) -> tuple[str, str] | None:
        """(subject, guard text) of the first guard that fails, else None."""
        for name, old in self.values.items():
            new = values.get(name, DEFAULT)
            got = self._check(name, old, new)
            if got is not None:
                return name, got
        return None

    def _check(self, name: str, old: Abstract, new: Abstract) -> str | None:
        if old == new or old[0] in ("?", "DEF") or new[0] == "?":
            return None
        p = self.params.get(name)
        if p is not None and not p.used and not name.startswith("self."):
            return None  # never read: dynamo installed no guard on it
        if old[0] == "T" and new[0] != "T":
            # the tensor guard checks the argument's type before the frame runs (torch 2.13:
            # `expected type of 'mask' to be a tensor type, but found <class 'NoneType'>`):
            # no user line, the `def`; the other way round the guard is the read's (`is None`)
            return f"{_TYPE_GUARD}'{name}' to be a tensor type, but found {_type_name(new)}"
        if old[0] == "N" or new[0] == "N":
            return f"{name} is None" if old[0] == "N" else f"{name} is not None"
        if old[0] == "T" and new[0] == "T":
            if old[2] != new[2]:
                return f"tensor '{name}' dtype mismatch. expected {old[2]}, actual {new[2]}"
            if old[4:5] != new[4:5]:
                # dynamo's tensor guard checks requires_grad with the dtype and sizes (torch
                # 2.13: `tensor 'x' requires_grad mismatch. expected requires_grad=0`)
                return (
                    f"tensor '{name}' requires_grad mismatch. "
                    f"expected requires_grad={int(bool(old[4:5] and old[4]))}"
                )
            if len(old[1]) != len(new[1]):
                return (
                    f"tensor '{name}' rank mismatch. expected {len(old[1])}, actual {len(new[1])}"
                )
            dyn = self.dynamic.get(name) or set()
            rank = len(old[1])
            for d, (a, b) in enumerate(zip(old[1], new[1])):
                if a == b:
                    continue
                if d not in dyn or b in (0, 1) or (p is not None and p.dim_specialized(d, rank)):
                    return f"tensor '{name}' size mismatch at index {d}. expected {a}, actual {b}"
                for r in p.dim_rows(d, rank) if p is not None else ():
                    if r[1] == "branch" and _outcome(r, a) != _outcome(r, b):
                        # the guard's comment names the branch (`# if x.size(1) > n:`): the
                        # dynamic stage reports that line (torch 2.13)
                        return f"{_size_branch_text(name, d, r, a)}{_LINE_SEP}{r[2]}"
            return None
        if old[0] in ("I", "F") and new[0] in ("I", "F"):
            specialized = p is not None and p.specialized
            if name.startswith("self.") and old[0] == "I":
                specialized = True  # int attributes of a module stay static; floats do not
            if not self.dynamic.get(name) or specialized:
                return f"{name} == {_fmt(old[1])}"
            if old[0] == "I" and (new[1] in (0, 1)) != (old[1] in (0, 1)):
                return f"{name} == {_fmt(old[1])}"
            for r in p.rows if p is not None else ():
                if r[1] != "branch":
                    continue
                a, b = _outcome(r, old[1]), _outcome(r, new[1])
                if a is not None and a != b:
                    return f"{name} {r[3]} {_fmt(r[4])}" if r[3] != "truth" else f"bool({name})"
            return None
        if old[0] == "D" and new[0] == "D":
            # dynamo guards a dict argument per key that traced code reads or tests (`batch["x"]`,
            # `"y" in batch`, `batch.get("y")`), not its whole key set (torch 2.13)
            ok, nk = dict(old[1]), dict(new[1])
            for k in [*ok, *(k for k in nk if k not in ok)]:
                if (k in ok) != (k in nk):
                    if p is not None and p.keys is not None and k not in p.keys:
                        continue  # never read nor tested: not guarded
                    return (
                        f"{'not ' if k not in ok else ''}___dict_contains({k!r}, {name})"
                        f"{_KEY_SEP}{k}"
                    )
                got = self._check(f"{name}[{k!r}]", ok[k], nk[k])
                if got is not None:
                    return got
            return None
        if old[0] == "L" and new[0] == "L":
            if len(old[1]) != len(new[1]):
                return f"len({name}) == {len(old[1])}"
            for i, (a, b) in enumerate(zip(old[1], new[1])):
                got = self._check(f"{name}[{i}]", a, b)
                if got is not None:
                    return got
            return None
        if old[0] != new[0]:
            return f"type({name}) is the type seen when compiling"
        return f"{name} == {_fmt(old[1])}"


def _type_name(v: Abstract) -> str:
    return {"N": "NoneType", "I": "int", "F": "float", "L": "list", "D": "dict"}.get(
        v[0], "another type"
    )


_KEY_SEP = "\x00"  # between a dict-key guard's text and the key (split off where it is placed)
_LINE_SEP = "\x01"  # between a guard's text and the line its comment names


_CONTAINERS = frozenset({"ModuleList", "Sequential", "ParameterList"})


def _container_index(path: str, qual: str, name: str) -> int | None:
    """The first line of the method ``qual`` that indexes a module container of its class
    with its parameter ``name`` (``self.heads[name]``, the attribute made by
    ``nn.ModuleList(...)``/``nn.Sequential(...)``/``nn.ParameterList(...)`` in ``__init__``);
    None when it does not."""
    tree = parsed_tree(path)
    if tree is None or "." not in qual:
        return None
    fn = function_node(tree, qual)
    cls = class_node(tree, qual.rsplit(".", 1)[0])
    if fn is None or cls is None:
        return None
    held: set[str] = set()
    for n in ast.walk(cls):
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and key_of(n.targets[0]).startswith("self.")
            and isinstance(n.value, ast.Call)
        ):
            f = n.value.func
            callee = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if callee in _CONTAINERS:
                held.add(key_of(n.targets[0]))
    lines = [
        n.lineno
        for n in own_nodes(fn)
        if isinstance(n, ast.Subscript)
        and key_of(n.value) in held
        and isinstance(n.slice, ast.Name)
        and n.slice.id == name
    ]
    return min(lines, default=None)


_CMP_OPS: dict[type, str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _init_value(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    value: ast.expr,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
) -> tuple[bool, Any]:
    """(known, value) of what ``__init__`` binds: a literal number, or a parameter of
    ``__init__`` that it never rebinds, valued by the spec's constructor arguments (``args``,
    ``kwargs``) or else by its literal default."""

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    if isinstance(value, ast.Constant):
        return number(value.value), value.value
    if not isinstance(value, ast.Name):
        return False, None
    name = value.id
    a = init.args
    pos = [*a.posonlyargs, *a.args][1:]  # after `self`
    if name not in {p.arg for p in [*pos, *a.kwonlyargs]}:
        return False, None
    for n in ast.walk(init):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
            return False, None  # rebound (`max_len = max_len or 512`): not the argument
    if name in kwargs:
        v = kwargs[name]
        return number(v), v
    idx = next((i for i, p in enumerate(pos) if p.arg == name), None)
    if idx is not None and idx < len(args):
        return number(args[idx]), args[idx]
    defaults: dict[str, ast.expr] = dict(
        zip([p.arg for p in pos][len(pos) - len(a.defaults) :], a.defaults)
    )
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    d = defaults.get(name)
    if isinstance(d, ast.Constant) and number(d.value):
        return True, d.value
    return False, None


def _bound_attr_branches(
    path: str, qual: str, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> dict[int, tuple[str, Any]]:
    """By line, the comparison of a branch of the method ``qual`` with an attribute of its
    module that is a constant (``if x.size(1) > self.max_len:``): ``(op, value)``, the op as
    read with the other side on the left. Such an attribute is bound once, in a statement of
    ``__init__``'s own body, from a literal number or an ``__init__`` parameter (the spec's
    constructor arguments, else its literal default), and stored nowhere else in the class:
    dynamo reads it as a constant, and the guard a branch on a symbolic size installs compares
    the size with its value (torch 2.13)."""
    tree = parsed_tree(path)
    if tree is None or "." not in qual:
        return {}
    fn = function_node(tree, qual)
    cls = class_node(tree, qual.rsplit(".", 1)[0])
    init = function_node(tree, f"{qual.rsplit('.', 1)[0]}.__init__")
    if fn is None or cls is None or init is None:
        return {}
    stores: dict[str, int] = {}
    for n in ast.walk(cls):
        tgts: list[ast.expr] = []
        if isinstance(n, ast.Assign):
            tgts = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            tgts = [n.target]
        for t in tgts:
            for e in ast.walk(t):
                k = key_of(e) if isinstance(e, ast.Attribute) else ""
                if k.startswith("self.") and k.count(".") == 1:
                    stores[k] = stores.get(k, 0) + 1
    consts: dict[str, Any] = {}
    for st in init.body:
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Attribute)
        ):
            k = key_of(st.targets[0])
            if k.startswith("self.") and stores.get(k) == 1:
                ok, v = _init_value(init, st.value, args, kwargs)
                if ok:
                    consts[k] = v
    if not consts:
        return {}
    out: dict[int, tuple[str, Any]] = {}
    seen: dict[int, int] = {}
    for n in own_nodes(fn):
        if not isinstance(n, ast.Compare) or len(n.ops) != 1:
            continue
        op = _CMP_OPS.get(type(n.ops[0]))
        seen[n.lineno] = seen.get(n.lineno, 0) + 1
        left, right = key_of(n.left), key_of(n.comparators[0])
        if op is None or (left in consts) == (right in consts):
            continue
        if right in consts:
            out[n.lineno] = (op, consts[right])
        else:
            out[n.lineno] = (_FLIP.get(op, op), consts[left])
    return {ln: v for ln, v in out.items() if seen[ln] == 1}  # one comparison on the line


def _dict_keys_read(path: str, qual: str, name: str) -> dict[str, int] | None:
    """The keys of parameter ``name`` that the function ``qual`` reads or tests with a literal
    key (``name["k"]``, ``"k" in name``, ``name.get("k")``, ``name.pop("k")``), each with its
    first line: where dynamo installs the guard on the key. None when the function uses the
    dict otherwise too (iterates it, takes its length, passes it on: its keys are unknown)."""
    tree = parsed_tree(path)
    fn = function_node(tree, qual) if tree is not None else None
    if fn is None:
        return None

    def this(e: ast.AST) -> bool:
        return isinstance(e, ast.Name) and e.id == name

    def key_of(e: ast.AST | None) -> str | None:
        return e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None

    out: dict[str, int] = {}
    keyed: set[int] = set()  # the ids of the reads of `name` that name a key
    for n in own_nodes(fn):
        k: str | None = None
        at: ast.AST | None = None
        if isinstance(n, ast.Subscript) and this(n.value):
            k, at = key_of(n.slice), n.value
        elif (
            isinstance(n, ast.Compare)
            and len(n.ops) == 1
            and isinstance(n.ops[0], (ast.In, ast.NotIn))
            and this(n.comparators[0])
        ):
            k, at = key_of(n.left), n.comparators[0]
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and this(n.func.value)
            and n.func.attr in ("get", "pop", "setdefault")
            and n.args
        ):
            k, at = key_of(n.args[0]), n.func.value
        if k is None or at is None or not isinstance(n, ast.expr):
            continue
        keyed.add(id(at))
        out[k] = min(out.get(k, n.lineno), n.lineno)
    if any(this(n) and id(n) not in keyed for n in own_nodes(fn)):
        return None
    return out


def _size_branch_text(name: str, d: int, row: list[Any], v: int) -> str:
    """The guard a branch on a dynamic size installs, as torch writes it for the value the
    entry was compiled with: ``2 <= x.size()[1] <= 16`` (``seq > 16`` was false)."""
    op, lit = row[3], row[4]
    size = f"{name}.size()[{d}]"
    if isinstance(lit, int) and op in ("<", "<=", ">", ">="):
        below = {"<": lit - 1, "<=": lit, ">": lit, ">=": lit - 1}[op]
        if v <= below:
            return f"2 <= {size} <= {below}"
        return f"{below + 1} <= {size}"
    return f"{size} {op} {lit!r}" if op and op != "truth" else f"bool({size})"


def _outcome(row: list[Any], v: Any) -> bool | None:
    op, lit = row[3], row[4]
    try:
        if op == "truth":
            return bool(v)
        if op == "==":
            return bool(v == lit)
        if op == "!=":
            return bool(v != lit)
        if op == "<":
            return bool(v < lit)
        if op == "<=":
            return bool(v <= lit)
        if op == ">":
            return bool(v > lit)
        if op == ">=":
            return bool(v >= lit)
    except TypeError:
        return None
    return None


def predict_recompiles(
    project: Project,
    entry: FKey,
    calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]],
    state_sites: Sequence[tuple[str, str, int, str]],
    value_breaks: Sequence[BreakSite],
    limit: int = RECOMPILE_LIMIT,
    automatic: bool = True,
    marked: Mapping[int | str, Sequence[int]] | None = None,
    break_sites_all: Sequence[BreakSite] = (),
    init: tuple[Sequence[Any], Mapping[str, Any]] = ((), {}),
) -> tuple[list[PredictedRecompile], bool]:
    """Simulate dynamo's cache for the entry frame over the spec's calls. ``automatic``: automatic
    dynamic shapes (off under ``torch.compile(dynamic=False)``); ``marked``: dims the spec marks
    dynamic (``mark_dynamic``), by input index or keyword; ``init``: the spec's constructor
    arguments (positional, keyword)."""
    fn = project.fn(entry)
    path = entry[0]
    def_line = next((int(r[2]) for r in fn.guards if r[1] == "def"), fn.line)
    rows: dict[str, list[list[Any]]] = {}
    bound: dict[int, tuple[str, Any]] | None = None
    for r in fn.guards:
        if r[1] == "branch" and r[3] == "" and r[4] is None and r[2]:
            # a comparison with a module constant (`x.size(1) > self.max_len`): its value
            if bound is None:
                bound = _bound_attr_branches(path, entry[1], init[0], init[1])
            got = bound.get(int(r[2]))
            if got is not None:
                r = [*r[:3], *got, *r[5:]]
        if r[1] != "def":
            rows.setdefault(r[0], []).append(r)
    params = {p.name: _Param(p.name, rows.get(p.name, [])) for p in fn.params}
    for name, prm in params.items():
        if any(v[0] == "D" for args, kw in calls for v in [*args, *kw.values()]):
            prm.keys = _dict_keys_read(path, entry[1], name)
        if any(v[0] == "I" for args, kw in calls for v in [*args, *kw.values()]):
            prm.indexes = _container_index(path, entry[1], name)
        handed = _handed_rows(project, entry, name, prm.rows)
        if handed is not None:
            prm.rows = handed
    for key, rs in rows.items():
        base, _, d = key.partition("#")
        if d and base in params:
            params[base].dims.setdefault(int(d), []).extend(rs)
            params[base].rows.extend(r for r in rs if r[1] == "use")
    seq: list[dict[str, Abstract]] = []
    # dynamo's guards on a list's length come before those on an int attribute's value
    state_sites = sorted(state_sites, key=lambda s: s[1] == "int")
    for i, (args, kwargs) in enumerate(calls):
        vals: dict[str, Abstract] = {}
        for attr, what, _line, _fq in state_sites:  # changes on every call
            if what == "float":
                vals[f"self.{attr}"] = ("F", float(i))
            else:
                vals[f"self.{attr}"] = ("I", i) if what == "int" else ("L", (("?",),) * i)
        vals.update(_bind(fn, args, kwargs))
        seq.append(vals)
    counts: dict[tuple[str, str], list[Any]] = {}
    hit = False
    entries: list[_Entry] = []
    dynamic: dict[str, Any] = {}
    positional = [p.name for p in fn.params if p.index >= 0 and p.name not in ("self", "cls")]
    for inp, dims in (marked or {}).items():
        pname = positional[inp] if isinstance(inp, int) and inp < len(positional) else str(inp)
        dynamic.setdefault(pname, set()).update(int(d) for d in dims)
    first_seen: dict[str, Abstract] = {}
    n = 0
    for vals in seq:
        if not entries:
            entries.append(_Entry(vals, dynamic, params))
            first_seen.update(vals)
            continue
        if any(e.failing(vals) is None for e in entries):
            continue
        if n >= limit:
            hit = True
            break
        subject, guard = entries[-1].failing(vals) or ("", "")
        n += 1
        site = (subject.split("[")[0], re.sub(r"-?\d+(\.\d+)?", "N", guard))
        counts.setdefault(site, [subject, guard, 0])[2] += 1
        for name, v in vals.items():  # automatic dynamic: what changed becomes a symbol
            old = first_seen.get(name)
            if old is None or old == v or not automatic:
                continue
            if old[0] == "T" and v[0] == "T" and len(old[1]) == len(v[1]):
                dims = dynamic.setdefault(name, set())
                p = params.get(name)
                rank = len(v[1])
                if isinstance(dims, set):
                    dims.update(
                        d
                        for d, (a, b) in enumerate(zip(old[1], v[1]))
                        if a != b and not (p is not None and p.dim_specialized(d, rank))
                    )
            elif old[0] in ("I", "F") and v[0] in ("I", "F"):
                dynamic[name] = True
        first_seen.update(vals)  # what the frame state compares the next call with
        entries.append(_Entry(vals, dynamic, params))
    out: list[PredictedRecompile] = []
    distinct = _distinct_tensor_calls(calls)
    state_by_attr = {a: (what, line, fq) for a, what, line, fq in state_sites}
    for (_subj, _key), (subject, guard, count) in counts.items():
        if subject.startswith("self."):
            attr = subject[5:]
            what, line, fq = state_by_attr.get(attr, ("int", def_line, entry[1]))
            if what == "float":
                reason = (
                    f"`{subject}` is a float attribute changed in traced code; torch guards on "
                    "its value at its first read, recompiles once, then keeps it symbolic"
                )
            elif what != "int":
                guard = f"len({subject}) == {guard.rsplit(' ', 1)[-1]}"
                guard = re.sub(r"len\(self\.\w+\)\[\d+\]", f"len({subject})", guard)
                reason = (
                    f"`{subject}` is a Python list that grows on every call; torch guards on its "
                    "length, so every call recompiles"
                )
            else:
                reason = (
                    f"`{subject}` is an int counter changed in traced code; torch guards on its "
                    "value, so every call recompiles"
                )
            out.append(
                PredictedRecompile(
                    path, line, fq.rsplit(".", 1)[-1], subject, guard, count, reason, _FIX["state"]
                )
            )
            continue
        base = subject.split("[")[0]
        p = params.get(base)
        at, line = p.where(path, def_line) if p is not None else (path, def_line)
        if _KEY_SEP in guard:
            guard, key = guard.split(_KEY_SEP, 1)
            line = (p.keys or {}).get(key, def_line) if p is not None else def_line
            reason = (
                f"`{base}` is a dict that has the key {key!r} in some calls only: torch guards "
                "on the key where traced code first reads or tests it"
            )
            out.append(
                PredictedRecompile(path, line, fn.name, base, guard, count, reason, _FIX["key"])
            )
            continue
        if _LINE_SEP in guard:
            guard, named = guard.split(_LINE_SEP, 1)
            if named.isdigit() and int(named) > 0:
                reason = (
                    f"`{base}`'s size is symbolic after its first change, and the branch on it "
                    "guards its range: a size past the range recompiles"
                )
                out.append(
                    PredictedRecompile(
                        path, int(named), fn.name, base, guard, count, reason, _FIX["tensor"]
                    )
                )
                continue
        if guard.startswith(("tensor '", _TYPE_GUARD)) or f"{base}.size()" in guard:
            # a guard on a tensor input (its size, dtype, rank, a symbolic size's range) is
            # checked before the frame runs: torch names no user line, only the frame's `def`
            at, line = path, def_line
        kind = _kind_of(subject, guard)
        if (
            kind in ("number", "string")
            and p is not None
            and at == path
            and line == p.first_use
            and all(len(r) <= 5 for r in p.rows)
        ):
            # the first read only moved the value (`k = size`, `[s, s]`, `for d in dilation`):
            # dynamo keeps it lazy and guards where traced code first needs it
            line = _guarding_read_line(path, entry[1], base, line)
        if kind == "string" and "== '" in guard and p is not None and p.rows:
            if len({str(r[5]) if len(r) > 5 else path for r in p.rows}) == 1:
                # a string is a constant guarded where traced code first reads it (torch 2.13:
                # `task == 'cls'` at `getattr(self, f"head_{task}")`, not at a later `if`);
                # the same in the callee it is handed to (kornia's `resize`: `interpolation ==
                # 'bilinear'` at `if interpolation in ("linear", "trilinear")`, not at the
                # later `F.interpolate(..., mode=interpolation)`)
                line = min(
                    (int(r[2]) for r in p.rows if r[1] in ("use", "branch", "specialize") and r[2]),
                    default=line,
                )
        if kind == "number" and p is not None and p.specialized:
            reason = (
                f"`{base}` is a Python number that traced code needs as a constant "
                "(`range()` or a functional op's argument): every new value recompiles"
            )
            fix = _FIX["specialized"]
            first = min(
                (
                    _guarding_read_line(path, entry[1], base, int(r[2]))
                    if r[1] == "use"
                    else int(r[2])
                    for r in p.rows
                    if r[1] in ("use", "branch") and r[2]
                ),
                default=line,
            )
            if p.indexes is not None:
                reason = (
                    f"`{base}` is a Python int that indexes a module container: every new "
                    "value recompiles"
                )
            if p.indexes is not None and all(len(r) <= 5 for r in p.rows):
                # an index into a module container (`self.heads[task_id]`): the first
                # recompile fails `task_id == 0` where traced code first reads it; automatic
                # dynamic then makes it a symbol, which the container's `__getitem__`
                # specialises in torch's own file (`operator.index(idx)`): the later guards
                # name no user line, and torch reports them at the `def` (torch 2.13)
                line = min(first, p.indexes)
                out.append(
                    PredictedRecompile(at, line, fn.name, base, guard, 1, reason, _FIX["number"])
                )
                count -= 1
                line = def_line
                if count < 1:
                    continue
            elif count > 1 and first < line and all(len(r) <= 5 for r in p.rows):
                # the first recompile fails the guard on the constant installed where traced
                # code first reads it (`dt = 1.0 / num_steps`); automatic dynamic then meets
                # the use that needs the value (`range(num_steps)`) and guards it there: the
                # later ones (torch 2.13)
                out.append(
                    PredictedRecompile(at, first, fn.name, base, guard, 1, reason, _FIX["number"])
                )
                count -= 1
        elif kind == "number":
            reason = (
                f"`{base}` is a Python number and the spec passes another value: torch "
                "specialised on the first one"
            )
            fix = _FIX["number"]
        elif kind == "tensor" and "requires_grad" in guard:
            reason = (
                f"`{base}` requires grad in some calls and not in others: each setting "
                "compiles its own entry (once each)"
            )
            fix = _FIX["grad"]
        elif kind == "tensor":
            reason = (
                f"`{base}` comes with another shape: the first change recompiles, then the "
                "dim is dynamic"
            )
            m = re.search(r"index (\d+)", guard)
            fix = _FIX["tensor"].replace("(x, dim)", f"({base}, {m.group(1) if m else 'dim'})")
        elif kind == "none":
            reason = f"`{base}` is `None` in some calls and a tensor in others"
            if guard.startswith(_TYPE_GUARD):
                reason += (
                    ": a tensor first, so its tensor guard fails on the type before the frame "
                    "runs (reported at the `def`)"
                )
            fix = _FIX["none"]
        else:
            reason = f"`{base}` is a Python constant torch guards on; each new value recompiles"
            fix = _FIX["string"]
        out.append(PredictedRecompile(at, line, fn.name, base, guard, count, reason, fix))
    out.extend(
        _number_recompiles(
            project, [entry], value_breaks, len(calls), distinct, sites=break_sites_all
        )
    )
    return out, hit
