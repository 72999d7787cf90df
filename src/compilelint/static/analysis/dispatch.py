"""Calls through objects, which the per-file walk leaves out: methods called on an object made
from a known class or from a registry of classes in the same function, and methods of objects
held in ``self.<attr>``.

Libraries pick implementations from tables (``solver = SOLVERS[method](func=f, y0=y0)`` then
``solver.integrate(t)``) and keep helpers in attributes (``self._gen = Generator(...)`` then
``self._gen.sample(shape)``). Each such call becomes a call site with the ref
``"O|<class ref>|<method>"``, which :class:`compilelint.static.follow.FollowProject` resolves on
the class's MRO. Argument values (:mod:`values`) are the enclosing function's parameters where an
argument is one (``P|<func>|<param>``); other arguments are unknown. Reads the file with CPython's
``ast`` (already accepted by phase 1); never imports anything.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
from collections import OrderedDict
from typing import Any

from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import CallSite, FileFacts, FunctionFacts
from compilelint.static.analysis.values import Value

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Module:
    def __init__(self, tree: ast.Module, facts: FileFacts) -> None:
        self.facts = facts
        self.classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
        self.registries: dict[str, list[str]] = {}
        self.registry_keys: dict[str, list[tuple[str | None, str]]] = {}  # (entry key, ref)
        for st in tree.body:
            target = value = None
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                target, value = st.targets[0], st.value
            elif isinstance(st, ast.AnnAssign) and st.value is not None:
                target, value = st.target, st.value
            if not isinstance(target, ast.Name) or not isinstance(value, ast.Dict):
                continue
            keyed = [
                (k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None, r)
                for k, v in zip(value.keys, value.values)
                if v is not None
                for r in self.class_refs(v)
            ]
            if keyed:
                self.registries[target.id] = [r for _, r in keyed]
                self.registry_keys[target.id] = keyed

    def factory_ref(self, func: ast.expr) -> str | None:
        """``K|<function ref>`` for a call of a function that may return classes
        (``solver_fn = methods.select(method)``): which classes is decided on the project."""
        name = N.ast_dotted(func)
        if name is None or name.rsplit(".", 1)[-1][:1].isupper():
            return None
        head, _, tail = name.partition(".")
        if head in self.facts.imports and tail:
            return f"K|D|{self.facts.imports[head]}.{tail}"
        if not tail and head in self.facts.functions:
            return f"K|Q|{head}"
        return None

    def class_refs(self, func: ast.expr) -> list[str]:
        """Refs of the classes a call of ``func`` may construct."""
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
            return list(self.registries.get(func.value.id, ()))
        name = N.ast_dotted(func)
        if name is None:
            return []
        head, _, tail = name.partition(".")
        if not tail and head in self.classes:
            return [f"Q|{head}"]
        if head in self.facts.imports and name[0].isalpha():
            last = name.rsplit(".", 1)[-1]
            if last[:1].isupper():  # by convention a class; resolution checks it is one
                return [f"D|{self.facts.imports[head]}{name[len(head) :]}"]
        return []


def _arg_value(node: ast.expr, qual: str, params: set[str]) -> Value:
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, ast.Name) and node.id in params:
        return V.sym(f"P|{qual}|{node.id}")
    return V.UNKNOWN


def _site(
    ref: str, call: ast.Call, qual: str, params: set[str], in_loop: bool, guard: str = ""
) -> CallSite:
    args = [_arg_value(a, qual, params) for a in call.args]
    kwargs = {k.arg: _arg_value(k.value, qual, params) for k in call.keywords if k.arg}
    # `*args` / `**options`: positions and keywords are not known here
    star = any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )
    return CallSite(
        ref, args, kwargs, in_loop, call.lineno, call.col_offset + 1, star=star, guard=guard
    )


_LITERALS = (str, int, float, bool)


def none_literals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, object]:
    """Parameters a function re-binds to a literal when they are None: a statement of its body
    ``if p is None: p = <literal>`` (no ``else``), and no other binding of ``p``. What the
    function sees for ``p`` is then the caller's value, or that literal where it was None."""
    a = fn.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    found: dict[str, object] = {}
    for st in fn.body:
        if not (isinstance(st, ast.If) and not st.orelse and len(st.body) == 1):
            continue
        t, b = st.test, st.body[0]
        if not (
            isinstance(t, ast.Compare)
            and isinstance(t.left, ast.Name)
            and t.left.id in params
            and len(t.ops) == 1
            and isinstance(t.ops[0], ast.Is)
            and isinstance(t.comparators[0], ast.Constant)
            and t.comparators[0].value is None
            and isinstance(b, ast.Assign)
            and len(b.targets) == 1
            and isinstance(b.targets[0], ast.Name)
            and b.targets[0].id == t.left.id
            and isinstance(b.value, ast.Constant)
            and type(b.value.value) in _LITERALS
        ):
            continue
        found[t.left.id] = b.value.value
    if not found:
        return found
    stores: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in found and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                stores[n] = stores.get(n, 0) + 2
        elif isinstance(node, ast.ExceptHandler) and node.name in found:
            stores[node.name] = stores.get(node.name, 0) + 2
    return {k: v for k, v in found.items() if stores.get(k, 0) == 1}


def _key_param(
    mod: _Module, fn: ast.FunctionDef | ast.AsyncFunctionDef, key: ast.expr
) -> tuple[str, str | None, object] | None:
    """The parameter a registry key is, with its literal string default (or None) and what a
    None key becomes (``CallSite.guard``'s last element): ``key`` names a parameter that is
    only ever re-bound by unpacking a call it is passed to (a checking helper that hands it
    back, ``..., method, ... = _check_inputs(..., method, ...)``) or to a literal under ``if
    key is None``."""
    if not isinstance(key, ast.Name):
        return None
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    default: ast.expr | None = None
    found = False
    for i, p in enumerate(pos):
        if p.arg == key.id:
            found = True
            j = i - (len(pos) - len(a.defaults))
            default = a.defaults[j] if j >= 0 else None
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if p.arg == key.id:
            found, default = True, d
    if not found:
        return None
    own = none_literals(fn).get(key.id)
    none_to: object = own if isinstance(own, str) else None
    stores = 0  # every binding of the name must be an accepted re-binding
    accepted = 1 if none_to is not None else 0
    helpers = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == key.id and not isinstance(node.ctx, ast.Load):
            stores += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and key.id in node.names:
            return None
        elif isinstance(node, ast.ExceptHandler) and node.name == key.id:
            return None
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            if any(
                isinstance(x, ast.Name) and x.id == key.id
                for x in (*call.args, *(k.value for k in call.keywords))
            ):
                n = sum(
                    1
                    for t in node.targets
                    for n in ast.walk(t)
                    if isinstance(n, ast.Name) and n.id == key.id
                )
                accepted += n
                if n:
                    helpers.append(node)
    if stores != accepted:
        return None
    if none_to is None and len(helpers) == 1:
        none_to = _rebind(mod, helpers[0], key.id)
    lit = default.value if isinstance(default, ast.Constant) else None
    return key.id, lit if isinstance(lit, str) else None, none_to


def _rebind(mod: _Module, node: ast.Assign, name: str) -> list[object] | None:
    """``[helper ref, argument slot, tuple index]`` of ``..., name, ... = helper(..., name,
    ...)``: the slot is the position (an int) or keyword the name is passed at, the index the
    target position it is unpacked from (-1: the whole result)."""
    ref = N.ast_dotted(node.value.func) if isinstance(node.value, ast.Call) else None
    if ref is None or len(node.targets) != 1 or not isinstance(node.value, ast.Call):
        return None
    head, _, tail = ref.partition(".")
    if head in mod.facts.imports:
        ref = f"D|{mod.facts.imports[head]}" + (f".{tail}" if tail else "")
    elif not tail and head in mod.facts.functions:
        ref = f"Q|{head}"
    else:
        return None
    call = node.value
    slots: list[object] = [
        i for i, x in enumerate(call.args) if isinstance(x, ast.Name) and x.id == name
    ]
    slots += [k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == name]
    if len(slots) != 1 or any(isinstance(x, ast.Starred) for x in call.args):
        return None
    t = node.targets[0]
    if isinstance(t, ast.Name):
        return [ref, slots[0], -1]
    if not isinstance(t, ast.Tuple) or any(isinstance(e, ast.Starred) for e in t.elts):
        return None
    idx = [i for i, e in enumerate(t.elts) if isinstance(e, ast.Name) and e.id == name]
    return [ref, slots[0], idx[0]] if len(idx) == 1 else None


_NOT_OWN = (*_FUNCS, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.While, ast.comprehension)
# nodes that hold no call and no assignment: not walked into (a name's context, an operator)
_LEAVES = (
    ast.Name,
    ast.Constant,
    ast.expr_context,
    ast.operator,
    ast.cmpop,
    ast.unaryop,
    ast.boolop,
)


def _own_nodes(fn: ast.AST) -> list[tuple[ast.AST, bool]]:
    """The assignments and calls of a function body in source order (what ``_function``
    reads), without nested functions and classes, each with whether it is inside a loop."""
    out: list[tuple[ast.AST, bool]] = []
    _own_walk(fn, False, out)
    return out


def _own_walk(node: ast.AST, in_loop: bool, out: list[tuple[ast.AST, bool]]) -> None:
    # a module-level function, not a recursive closure: a closure that calls itself is a
    # reference cycle, which keeps what it holds (CPython's nodes) until the cyclic collector
    # runs. ``ast.iter_child_nodes``, inlined and keyed by type: this walk sees every node of
    # every function, and an ``isinstance`` against the abstract classes costs more per node
    # than a look-up of what the node's type is (``_kind``, decided once per type)
    kinds = _KINDS
    for name in _child_fields(type(node)):
        field = getattr(node, name, None)
        if type(field) is list:
            children: list[Any] | tuple[Any] = field
        else:
            children = (field,)
        for child in children:
            t = type(child)
            kind = kinds.get(t)
            if kind is None:
                kind = _kind(t)
            if kind == _SKIP:
                continue
            if t is ast.Assign or t is ast.Call:
                out.append((child, in_loop))
            if kind != _LEAF:
                _own_walk(child, in_loop or kind == _LOOP, out)


# what ``_own_walk`` does with a value of a type: not a node, or a node of a nested function,
# class or lambda (skipped); a node that holds no call and no assignment (a leaf: recorded
# when it is one, not walked into); a loop; any other node
_SKIP, _LEAF, _LOOP, _NODE = range(4)
_KINDS: dict[type, int] = {}
# fields that never hold a node other than a leaf (names, operators, contexts, flags)
_SCALAR_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "is_async", "simple"}
    | {"conversion", "kind", "type_comment"}
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _kind(t: type) -> int:
    if not issubclass(t, ast.AST) or issubclass(t, _NOT_OWN):
        k = _SKIP
    elif issubclass(t, _LEAVES):
        k = _LEAF
    elif issubclass(t, _LOOPS):
        k = _LOOP
    else:
        k = _NODE
    _KINDS[t] = k
    return k


def _child_fields(t: type) -> tuple[str, ...]:
    got = _FIELDS.get(t)
    if got is None:
        got = _FIELDS[t] = tuple(f for f in getattr(t, "_fields", ()) if f not in _SCALAR_FIELDS)
    return got


def _function(
    mod: _Module,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    facts: FunctionFacts,
    imported_only: bool,
) -> list[CallSite]:
    qual = facts.qual
    a = fn.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    env: dict[str, list[str]] = {}
    attr_classes: dict[str, list[str]] = {}
    if facts.cls is not None and facts.cls in mod.facts.classes:
        for attr, refs in mod.facts.classes[facts.cls].attr_classes.items():
            attr_classes[attr] = [r.removeprefix("*") for r in refs if "|" in r]
    known = {(c.line, c.col) for c in facts.calls}
    added: list[CallSite] = []

    def add(ref: str, call: ast.Call, in_loop: bool, guard: str = "", made: bool = False) -> None:
        # a scanned file: calls on objects of imported classes, and methods of objects this
        # function builds from a class of the file (``s = Stepper(x)``, then ``s.run(x)``)
        if imported_only and not ref.startswith("O|D|") and not made:
            return
        site = _site(ref, call, qual, params, in_loop, guard)
        if (site.line, site.col) in known and not ref.startswith("O|"):
            return
        added.append(site)

    def keyed(func: ast.expr) -> list[tuple[str, str]] | None:
        """``REGISTRY[param]``: each entry's class ref with its guard (see ``CallSite.guard``)."""
        if not isinstance(func, ast.Subscript) or not isinstance(func.value, ast.Name):
            return None
        entries = mod.registry_keys.get(func.value.id)
        kp = _key_param(mod, fn, func.slice) if entries else None
        if not entries or kp is None:
            return None
        return [(r, json.dumps([*kp[:1], k, *kp[1:]]) if k is not None else "") for k, r in entries]

    env_guards: dict[str, list[tuple[str, str]]] = {}
    for node, in_loop in _own_nodes(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f0 = node.value.func
            guarded = keyed(f0)
            for t in node.targets:
                if isinstance(t, ast.Name):
                    if guarded:
                        env_guards[t.id] = guarded
                    else:
                        env_guards.pop(t.id, None)
            refs = mod.class_refs(f0)
            if not refs and isinstance(f0, ast.Name) and f0.id in env:
                refs = env[f0.id]  # cls = factory(...); obj = cls(...)
            if not refs and not imported_only:
                k = mod.factory_ref(f0)
                refs = [k] if k else []
            if refs:
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        env[t.id] = refs
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in env:
            for r in env[func.id]:
                # cls(...) of a factory's class; obj(...) of an object made here: its __call__
                # (a module's forward)
                add(f"O|{r}|{'__init__' if r.startswith('K|') else '__call__'}", node, in_loop)
            continue
        if isinstance(func, ast.Subscript):  # REGISTRY[key](...): a constructor call
            guarded = keyed(func)
            if guarded:
                for r, g in guarded:
                    add(f"O|{r}|__init__", node, in_loop, g)
            else:
                for r in mod.class_refs(func):
                    add(f"O|{r}|__init__", node, in_loop)
            continue
        if not isinstance(func, ast.Attribute):
            continue
        obj = func.value
        refs = []
        if isinstance(obj, ast.Name) and obj.id in env:
            refs = env[obj.id]
        elif (
            isinstance(obj, ast.Attribute)
            and isinstance(obj.value, ast.Name)
            and obj.value.id == "self"
            and obj.attr in attr_classes
        ):
            refs = attr_classes[obj.attr]
        if isinstance(obj, ast.Name) and obj.id in env_guards:
            for r, g in env_guards[obj.id]:
                add(f"O|{r}|{func.attr}", node, in_loop, g, made=True)
            continue
        made = isinstance(obj, ast.Name) and obj.id in env
        for r in refs:
            add(f"O|{r}|{func.attr}", node, in_loop, made=made)
    added = _with_conds(facts, added)
    facts.calls.extend(added)
    return added


# The call sites found per (file, content, mode): the facts of one file's content are the same
# every time, so an editor's re-check of unchanged siblings does not parse them again.
_MEMO: OrderedDict[
    tuple[str, bytes, bool], tuple[dict[str, list[CallSite]], dict[str, dict[str, object]]]
] = OrderedDict()
_MEMO_SIZE = 512


def add_object_calls(
    data: bytes, facts: FileFacts, *, imported_only: bool = False, tree: ast.Module | None = None
) -> None:
    """Add the call sites through objects of one analysed file to its facts (in place);
    ``imported_only``: only calls on objects of imported classes (a scanned file's calls into
    installed packages); ``tree``: CPython's parse of ``data`` when the caller has it."""
    key = (facts.path, hashlib.blake2b(data, digest_size=16).digest(), imported_only)
    got = _MEMO.get(key)
    if got is not None:
        _MEMO.move_to_end(key)
        for qual, sites in got[0].items():
            ff = facts.functions.get(qual)
            if ff is not None:
                ff.calls.extend(_with_conds(ff, sites))
        for qual, literals in got[1].items():
            ff = facts.functions.get(qual)
            if ff is not None:
                ff.none_literals = dict(literals)
        return
    found: dict[str, list[CallSite]] = {}
    if tree is None:
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
    mod = _Module(tree, facts)
    _visit_bodies(tree.body, None, None, mod, imported_only, found)
    lits = {q: dict(ff.none_literals) for q, ff in facts.functions.items() if ff.none_literals}
    _MEMO[key] = (found, lits)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)


def _with_conds(ff: FunctionFacts, sites: list[CallSite]) -> list[CallSite]:
    """``sites`` with the conditions the walk saw on the same calls (``call_conds``)."""
    if not ff.call_conds:
        return sites
    at = {(line, col): conds for line, col, conds in ff.call_conds}
    out = []
    for s in sites:
        conds = at.get((s.line, s.col))
        if conds and not s.conds:
            s = dataclasses.replace(s, conds=list(conds))
        out.append(s)
    return out


def _visit_bodies(
    body: list[ast.stmt],
    cls: str | None,
    func: str | None,
    mod: _Module,
    imported_only: bool,
    found: dict[str, list[CallSite]],
) -> None:
    """``add_object_calls``' walk of the statements of ``body`` (a module-level function: a
    recursive closure would be a reference cycle holding CPython's tree)."""
    facts = mod.facts
    for node in body:
        if isinstance(node, _FUNCS):
            if func is None and cls is not None:
                qual = f"{cls}.{node.name}"
            elif func is not None:
                qual = f"{func}.<locals>.{node.name}"
            else:
                qual = node.name
            ff = facts.functions.get(qual)
            if ff is not None:
                ff.none_literals = none_literals(node)
                added = _function(mod, node, ff, imported_only)
                if added:
                    found.setdefault(qual, []).extend(added)
            _visit_bodies(node.body, None, qual, mod, imported_only, found)
        elif isinstance(node, ast.ClassDef):
            inner = f"{cls}.{node.name}" if cls is not None and func is None else node.name
            _visit_bodies(node.body, inner, None, mod, imported_only, found)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    _visit_bodies(
                        [s for s in sub if isinstance(s, (ast.stmt, ast.ExceptHandler))],  # type: ignore[misc]
                        cls,
                        func,
                        mod,
                        imported_only,
                        found,
                    )
