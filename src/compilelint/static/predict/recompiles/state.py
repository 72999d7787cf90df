"""Recompiles from the guards torch installs on module state traced code changes: an int or
float attribute, a dict filled in the forward, a tensor attribute grown with ``torch.cat``, a
submodule's numeric attribute, a flag (CL501/CL502 sites, :func:`_site_recompiles`). torch
reports each at the first read of the state (:func:`first_read`,
:func:`~compilelint.static.analysis.state.first_read_line`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Sequence

from compilelint.static.analysis.bindings import key_of
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import (
    class_node,
    function_node,
    installed,
    own_nodes,
    parsed_tree,
    source_bytes,
)
from compilelint.static.predict.prediction import BreakSite, FKey, PredictedRecompile
from compilelint.static.predict.reach import _held_by, _read_eagerly
from compilelint.static.predict.recompiles.fixes import _FIX
from compilelint.static.predict.recompiles.sites import Added, frame_input_recompile, traced_frame

# torch 2.13 (checked in tests/test_pred23g.py): a float attribute of a module that traced code
# changes is guarded on its value where it is first read; the next call recompiles once and
# automatic dynamic makes it symbolic (int attributes stay static: every call recompiles).
# Earlier versions were not checked: a ``--target-torch`` below this gives no prediction.
FLOAT_STATE_SINCE = (2, 13)


def _float_state_applies(torch_version: str | None) -> bool:
    if not torch_version:
        return True
    from compilelint.catalog import version_tuple

    return version_tuple(torch_version) >= FLOAT_STATE_SINCE


def float_state(
    project: Project,
    entry: FKey,
    keyset: set[FKey],
    trees: dict[str, ast.Module | None] | None = None,
) -> list[tuple[str, int, str]]:
    """``(attr, line of its first read, function)`` for each float attribute of the entry's
    own class (``self.<attr> = <float literal>`` in ``__init__``, assigned nowhere else in
    ``__init__``) that a reachable method of the class assigns from its own value
    (``self.c = min(self.c + s, m)``, ``self.c += s``): state that lives across the calls and
    changes. Reads CPython's tree of the entry's file (``trees``: the trees already read, by
    path; None for a file known to hold no such state)."""
    path = entry[0]
    cls = project.fn(entry).cls
    if not cls:
        return []
    if trees is not None and path in trees:
        tree = trees[path]
    else:
        try:
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            tree = None
        if trees is not None:
            trees[path] = tree
    if tree is None:
        return []
    from compilelint.static.analysis.state import first_read_line

    node = class_node(tree, cls)
    if node is None:
        return []

    def self_attr(t: ast.AST) -> str | None:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return t.attr
        return None

    floats: dict[str, int] = {}
    methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for m in methods:
        if m.name != "__init__":
            continue
        for sub in ast.walk(m):
            if isinstance(sub, ast.Assign):
                for t in sub.targets:
                    a = self_attr(t)
                    if a is None:
                        continue
                    v = sub.value
                    ok = isinstance(v, ast.Constant) and type(v.value) is float
                    floats[a] = floats.get(a, 0) + (1 if ok else 2)
    floats = {a: n for a, n in floats.items() if n == 1}
    out: list[tuple[str, int, str]] = []
    for m in methods:
        qual = f"{cls}.{m.name}"
        if m.name == "__init__" or (path, qual) not in keyset:
            continue
        for sub in ast.walk(m):
            target: ast.AST | None = None
            if isinstance(sub, ast.AugAssign):
                target = sub.target
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                a = self_attr(sub.targets[0])
                if a is not None and any(self_attr(x) == a for x in ast.walk(sub.value)):
                    target = sub.targets[0]
            a = self_attr(target) if target is not None else None
            if a in floats and all(o[0] != a for o in out):
                line = first_read_line(tree, a, getattr(sub, "lineno", m.lineno), every_path=False)
                out.append((a, line, qual))
    return out


_NUMERIC_CALLS = frozenset({"min", "max", "abs", "round", "float", "int"})


def _numeric_expr(e: ast.AST) -> bool:
    """Arithmetic on numbers and attribute chains (``min(self.final_p, self.drop.p + 0.1)``):
    a Python number, not a tensor op."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
    if isinstance(e, (ast.Name, ast.Attribute)):
        return True
    if isinstance(e, ast.BinOp):
        return _numeric_expr(e.left) and _numeric_expr(e.right)
    if isinstance(e, ast.UnaryOp):
        return _numeric_expr(e.operand)
    if isinstance(e, ast.Call):
        f = e.func
        named = (isinstance(f, ast.Name) and f.id in _NUMERIC_CALLS) or (
            isinstance(f, ast.Attribute) and key_of(f.value) == "math"
        )
        return named and not e.keywords and all(_numeric_expr(a) for a in e.args)
    return False


# torch.nn modules whose forward hands an attribute to a functional op that needs it as a
# constant (guards.SPECIALIZING_OPS: ``F.dropout(input, self.p, ...)``): after automatic
# dynamic made a changed value symbolic, that op specialises it again, in torch's file
_SPECIALIZED_ATTRS: dict[str, frozenset[str]] = dict.fromkeys(
    ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout"), frozenset({"p"})
)


def _torch_submodules(cls: ast.ClassDef | None) -> dict[str, str]:
    """``self.<name>`` -> the ``torch.nn`` class ``__init__`` builds it from (``nn.Dropout``)."""
    out: dict[str, str] = {}
    init = next(
        (
            n
            for n in (cls.body if cls else ())
            if isinstance(n, ast.FunctionDef) and n.name == "__init__"
        ),
        None,
    )
    for n in ast.walk(init) if init is not None else ():
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and key_of(n.targets[0]).startswith("self.")
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute)
            and isinstance(n.value.func.value, ast.Name)
            and n.value.func.value.id == "nn"
        ):
            out[key_of(n.targets[0])] = n.value.func.attr
    return out


def submodule_state(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int]]:
    """``(chain, line of its first read)`` for each attribute of a submodule (``self.drop.p``,
    two or more attributes deep) that the method changes from its own value by arithmetic
    (``self.drop.p = min(m, self.drop.p + s)``, ``self.bn.momentum *= 0.9``): state of the
    module tree that lives across the calls. dynamo guards its value where traced code first
    reads it (torch 2.13: ``self._modules['dropout'].p == 0.0``), so the next call recompiles
    there."""
    from compilelint.static.analysis.names import ast_dotted

    changed: dict[str, int] = {}
    for n in own_nodes(fn):
        target: ast.expr | None = None
        if isinstance(n, ast.AugAssign) and _numeric_expr(n.value):
            target = n.target
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and _numeric_expr(n.value):
            k = ast_dotted(n.targets[0]) or ""
            if any(isinstance(x, ast.Attribute) and ast_dotted(x) == k for x in ast.walk(n.value)):
                target = n.targets[0]
        if target is None or not isinstance(target, ast.Attribute):
            continue
        k = ast_dotted(target) or ""
        if k.startswith("self.") and k.count(".") >= 2:
            changed[k] = min(changed.get(k, target.lineno), target.lineno)
    out: list[tuple[str, int]] = []
    for k, line in sorted(changed.items(), key=lambda kv: kv[1]):
        reads = [
            n.lineno
            for n in own_nodes(fn)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and ast_dotted(n) == k
        ]
        out.append((k, min([*reads, line])))
    return out


def _submodule_state_recompiles(
    project: Project,
    entry: FKey,
    keyset: set[FKey],
    recs: Sequence[PredictedRecompile],
    calls: int,
) -> list[PredictedRecompile]:
    """A submodule's attribute that traced code changes (:func:`submodule_state`), for a spec
    whose calls run the model more than once: a recompile at its first read."""
    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    for path, qual in sorted(keyset):
        if installed(path) or "." not in qual:
            continue
        tree = parsed_tree(path)
        fn = function_node(tree, qual) if tree is not None else None
        if fn is None or tree is None:
            continue
        held: dict[str, str] | None = None
        for chain, line in submodule_state(fn):
            owner, attr = chain.rsplit(".", 1)
            if held is None:
                held = _torch_submodules(class_node(tree, qual.rsplit(".", 1)[0]))
            if calls > 2 and attr in _SPECIALIZED_ATTRS.get(held.get(owner, ""), ()):
                # symbolic after the first recompile, the value reaches the functional op the
                # module's forward calls, which specialises it in torch's file: every later
                # call recompiles, reported at the `def` (torch 2.13: `min(0.5, 0.1 +
                # self._modules['dropout'].p) == 0.2  # F.dropout(input, self.p, ...)`)
                efn = project.fn(entry)
                def_line = next((int(r[2]) for r in efn.guards if r[1] == "def"), efn.line)
                if (entry[0], def_line) not in taken:
                    taken.add((entry[0], def_line))
                    out.append(
                        PredictedRecompile(
                            entry[0],
                            def_line,
                            entry[1].rsplit(".", 1)[-1],
                            chain,
                            f"<{chain} as of the last call> == <its value>",
                            calls - 2,
                            f"`{chain}` changes on every call and `nn.{held[owner]}` hands it "
                            "to a functional op that needs it as a constant: every later call "
                            "recompiles",
                            _FIX["state"],
                        )
                    )
            if (path, line) in taken or _read_eagerly(project, (path, qual), line):
                continue
            taken.add((path, line))
            parts = chain.split(".")
            guard = "self" + "".join(f"._modules[{p!r}]" for p in parts[1:-1]) + f".{parts[-1]}"
            out.append(
                PredictedRecompile(
                    path,
                    line,
                    qual.rsplit(".", 1)[-1],
                    chain,
                    f"{guard} == <its first value>",
                    1,
                    f"`{chain}` is an attribute of a submodule that traced code changes: torch "
                    "guards on its value where it is first read, so the next call recompiles",
                    _FIX["state"],
                )
            )
    return out


# constructors of an empty dict (`self.cache = {}` in `__init__`)
_DICT_CTORS = frozenset({"dict", "Counter", "defaultdict", "OrderedDict"})
_DICT_FILL = frozenset({"update", "setdefault", "__setitem__"})


def _empty_dict(v: ast.expr) -> str | None:
    """The kind of empty dict ``v`` makes (``"dict"``, or the constructor's name), else None."""
    if isinstance(v, ast.Dict):
        return None if v.keys else "dict"
    if isinstance(v, ast.Call) and not v.args[1:]:
        f = v.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in _DICT_CTORS and (name == "defaultdict" or not v.args) and not v.keywords:
            return name
    return None


def dict_state(
    project: Project,
    entry: FKey,
    keyset: set[FKey],
    trees: dict[str, ast.Module | None] | None = None,
) -> list[tuple[str, int, str]]:
    """``(attr, line of its first read, function)`` for each dict attribute of the entry's
    own class that ``__init__`` makes empty (``self.usage = {}``, ``dict()``, ``Counter()``,
    ``defaultdict(int)``, ``OrderedDict()``; assigned nowhere else in ``__init__``) and a
    reachable method fills (``self.usage[c] = ...``, ``self.usage[c] += 1``,
    ``self.counts.update(...)``, ``.setdefault(...)``) without ever rebinding it: dynamo
    guards on the dict where traced code first reads it (``not self.usage`` on the first
    call, its keys and the int values it reads later), so the second call, which finds it
    filled, recompiles at that line (torch 2.13; a cache keyed by a size: once; a counter per
    key: again while its values change). A ``Counter`` is guarded by ``len(self.c) != 0``,
    which torch reports without a line of user code: at the ``def`` of the function reading
    it; its counts' guard (``dict.__getitem__(self.c, ...) == 1``) then recompiles the next
    call at the first read."""
    path = entry[0]
    cls = project.fn(entry).cls
    if not cls:
        return []
    tree = trees.get(path) if trees is not None and path in trees else parsed_tree(path)
    if tree is None:
        return []
    from compilelint.static.analysis.state import first_read_line

    node = class_node(tree, cls)
    if node is None:
        return []

    def self_attr(t: ast.AST | None) -> str | None:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return t.attr
        return None

    methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    dicts: dict[str, int] = {}
    kinds: dict[str, str] = {}
    for m in methods:
        if m.name != "__init__":
            continue
        for sub in ast.walk(m):
            if isinstance(sub, (ast.Assign, ast.AnnAssign)) and sub.value is not None:
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for t in targets:
                    a = self_attr(t)
                    if a is not None:
                        kind = _empty_dict(sub.value)
                        dicts[a] = dicts.get(a, 0) + (1 if kind else 2)
                        kinds[a] = kind or ""
    empty = {a for a, n in dicts.items() if n == 1}
    if not empty:
        return []
    fills: list[tuple[str, int, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for m in methods:
        if m.name == "__init__":
            continue
        traced = (path, f"{cls}.{m.name}") in keyset
        for sub in ast.walk(m):
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for t in targets:
                    if self_attr(t) in empty:
                        empty.discard(self_attr(t) or "")  # rebound: a new dict every call
                    elif isinstance(t, ast.Subscript) and traced and self_attr(t.value) in empty:
                        fills.append((self_attr(t.value) or "", sub.lineno, m))
            elif (
                traced
                and isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.func.attr in _DICT_FILL
                and self_attr(sub.func.value) in empty
            ):
                fills.append((self_attr(sub.func.value) or "", sub.lineno, m))
    out: list[tuple[str, int, str]] = []
    done: set[str] = set()
    for attr, line, m in sorted(fills, key=lambda f: f[1]):
        if attr not in empty or attr in done:
            continue
        done.add(attr)
        read = first_read_line(tree, attr, line, every_path=False)
        qual = f"{cls}.{m.name}"
        if kinds.get(attr) == "Counter":
            out.append((attr, m.lineno, qual))  # `len(self.c) != 0`: no line of user code
        out.append((attr, read, qual))
    return out


_StateFinder = Callable[
    [Project, FKey, set[FKey], dict[str, "ast.Module | None"]], list[tuple[str, int, str]]
]


def _state_recompiles(
    project: Project,
    roots: Iterable[FKey],
    keyset: set[FKey],
    taken: set[tuple[str, int]],
    finder: _StateFinder,
    init: re.Pattern[bytes],
    guard: str,
    why: str,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """The module state ``finder`` (:func:`float_state`, :func:`dict_state`) finds for each
    root of a class, as predicted recompiles at the lines not in ``taken`` (added to it); a
    file is parsed only when its bytes match ``init`` (the attribute's ``__init__`` form).
    ``guard`` and ``why`` are formats of ``attr``."""
    trees: dict[str, ast.Module | None] = {}
    out: list[PredictedRecompile] = []
    for root in roots:
        if not project.fn(root).cls:
            continue
        if root[0] not in trees:
            data = source_bytes(root[0], source)
            trees[root[0]] = parsed_tree(root[0], source, known) if init.search(data) else None
        for attr, line, qual in finder(project, root, keyset, trees):
            if (root[0], line) in taken:
                continue
            taken.add((root[0], line))
            out.append(
                PredictedRecompile(
                    root[0],
                    line,
                    qual.rsplit(".", 1)[-1],
                    f"self.{attr}",
                    guard.format(attr=attr),
                    1,
                    why.format(attr=attr),
                    _FIX["state"],
                )
            )
    return out


def _dict_state_recompiles(
    project: Project,
    roots: Iterable[FKey],
    keyset: set[FKey],
    recs: Sequence[PredictedRecompile],
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """:func:`dict_state` of each root's class as predicted recompiles (one at least: the
    second call finds the dict filled)."""
    return _state_recompiles(
        project,
        roots,
        keyset,
        {(r.path, r.line) for r in recs},
        dict_state,
        _DICT_INIT,
        "not self.{attr}",
        "`self.{attr}` is a dict of the module, empty until traced code fills it; torch guards "
        "on it where traced code first reads it, so the next call, which finds it filled, "
        "recompiles",
        source,
        known,
    )


_CAT = frozenset({"cat", "concat", "concatenate"})


def grown_tensors(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int, int]]:
    """``(attr, line, dim)`` for each ``self.<attr> = torch.cat([self.<attr>, ...], dim)`` in
    the function's own body (not in a nested function): a tensor on the module that traced code
    rebinds with its size grown along ``dim`` on every call (a streaming cache, a history)."""
    out: list[tuple[str, int, int]] = []
    for node in own_nodes(fn):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        t, v = node.targets[0], node.value
        if not (
            isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            and isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr in _CAT
            and isinstance(v.func.value, ast.Name)
            and v.func.value.id == "torch"
            and v.args
            and isinstance(v.args[0], (ast.List, ast.Tuple))
        ):
            continue
        if not any(key_of(e) == f"self.{t.attr}" for e in v.args[0].elts):
            continue
        dim_e = (
            v.args[1]
            if len(v.args) > 1
            else next((k.value for k in v.keywords if k.arg in ("dim", "axis")), None)
        )
        dim = 0
        if isinstance(dim_e, ast.Constant) and isinstance(dim_e.value, int):
            dim = dim_e.value
        elif (
            isinstance(dim_e, ast.UnaryOp)
            and isinstance(dim_e.operand, ast.Constant)
            and isinstance(dim_e.operand.value, int)
        ):
            dim = -dim_e.operand.value
        elif dim_e is not None:
            continue
        out.append((t.attr, node.lineno, dim))
    return out


def _registered_buffers(cls: ast.ClassDef | None) -> set[str]:
    """Names a class registers with ``self.register_buffer("name", ...)``."""
    out: set[str] = set()
    for node in ast.walk(cls) if cls is not None else ():
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "register_buffer"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.add(node.args[0].value)
    return out


def _grown_tensor_recompiles(
    project: Project,
    entry: FKey,
    keyset: set[FKey],
    sites: Sequence[BreakSite],
    recs: Sequence[PredictedRecompile],
    calls: int,
    limit: int,
) -> list[PredictedRecompile]:
    """A tensor attribute traced code grows by concatenation (:func:`grown_tensors`), in the
    entry or a function it calls, with no break in the entry before it: dynamo guards the
    tensor's sizes as an input of the frame, so the next call fails `tensor 'self.<attr>' size
    mismatch` before the frame runs, and torch names no user line: the recompile is reported
    at the entry's `def` (torch 2.13). A plain attribute then gets a dynamic dim (automatic
    dynamic: once, twice from an empty start); a registered buffer stays static, so every
    call recompiles."""
    if calls < 2:
        return []
    fn = project.fn(entry)
    def_line = next((int(r[2]) for r in fn.guards if r[1] == "def"), fn.line)
    if (entry[0], def_line) in {(r.path, r.line) for r in recs}:
        return []
    first_break = min((s.line for s in sites if (s.path, s.function) == entry), default=None)
    out: list[PredictedRecompile] = []
    for path, qual in sorted(keyset):
        if path != entry[0] or "." not in qual:
            continue
        tree = parsed_tree(path)
        node = function_node(tree, qual) if tree is not None else None
        if tree is None or node is None:
            continue
        cls = class_node(tree, qual.rsplit(".", 1)[0])
        buffers = _registered_buffers(cls)
        for attr, line, dim in grown_tensors(node):
            if (path, qual) == entry and first_break is not None and first_break < line:
                continue
            if out:
                break  # every grown tensor fails on the same calls: one recompile each time
            static = attr in buffers
            count = min(calls - 1, limit) if static else 1
            out.append(
                PredictedRecompile(
                    entry[0],
                    def_line,
                    fn.name,
                    f"self.{attr}",
                    f"tensor 'self.{attr}' size mismatch at index {dim}",
                    count,
                    f"`self.{attr}` is a tensor of the module that traced code grows with "
                    f"`torch.cat` (line {line}): torch guards its sizes before the frame runs"
                    + (
                        ", and a registered buffer stays static, so every call recompiles"
                        if static
                        else "; the first change recompiles, then the dim is dynamic"
                    ),
                    _FIX["grown"],
                )
            )
    return out


def first_read(path: str, attr: str, upto: int) -> int:
    """The first line of the function holding line ``upto`` (innermost) that reads
    ``self.<attr>`` (an augmented assignment is a read), at or before ``upto``: dynamo installs
    the guard on module state where traced code first reads it, which is where torch reports
    the recompile (:func:`~compilelint.static.analysis.state.first_read_line`); else ``upto``.
    Parses the file (only for state the prediction found)."""
    from compilelint.static.analysis.state import first_read_line, parse_source

    try:
        with open(path, encoding="utf-8") as fh:
            tree = parse_source(fh.read())
    except (OSError, UnicodeDecodeError):
        return upto
    return upto if tree is None else first_read_line(tree, attr, upto, every_path=False)


def _site_recompiles(
    project: Project, keyset: set[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """Frames of their own (a function that breaks, or one a skipped frame calls) whose call
    sites pass ``None`` at one and a value at another, or other keywords through a decorator's
    wrapper (:func:`~compilelint.static.analysis.breakpoints.site_inputs`): the first call
    compiles the frame for one site's arguments, the other site recompiles it once; later calls
    find both entries."""
    from compilelint.static.analysis.breakpoints import site_inputs

    added = Added(recs)
    for fi in site_inputs(project, project.callee_breaks()):
        frame = fi.frame or fi.function
        if not traced_frame(fi, keyset) or added.taken(fi.path, fi.line):
            continue
        if fi.differs == "kwargs":
            guard = f"len({fi.param}) == N"
            reason = (
                f"`{frame}` is compiled as a frame of its own (as its decorator's wrapper), and "
                f"its call sites pass different keywords: torch guards on `{fi.param}`"
            )
        else:
            guard = f"{fi.param} is None"
            reason = (
                f"`{frame}` is compiled as a frame of its own, and one call site passes "
                f"`{fi.param}` as `None`, another a value: torch guards on which it is"
            )
        added.add(frame_input_recompile(fi, guard, reason, _FIX["none"]))
    return added.out


def _flag_recompiles(
    project: Project, entry: FKey, keys: Iterable[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """A flag on an object that lives across calls, tested by an ``if`` whose branch sets it
    to another literal (the ``"flag"`` guard rows: ``if not self.ready: ...; self.ready =
    True``, ``if self.cfg.warmup: ...; self.cfg.warmup = False``): the first call compiles for
    the old value and flips it, the second sees the new one and recompiles; later calls
    match that entry."""
    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    for key in keys:
        fn = project.fn(key)
        rows = list(fn.guards)
        if fn.cls is not None and not installed(key[0]):
            rows += _flags_set_by_methods(key[0], key[1], fn.cls)
        for r in rows:
            if r[1] != "flag" or not r[2] or fn.cls is None or (key[0], r[2]) in taken:
                continue
            held = _held_by(project, entry, key[0], fn.cls)
            if held is None:
                continue
            subject = held + str(r[0])[4:]
            old = not r[4] if isinstance(r[4], bool) else None
            taken.add((key[0], int(r[2])))
            out.append(
                PredictedRecompile(
                    key[0],
                    int(r[2]),
                    fn.name,
                    subject,
                    f"{subject} == {old!r}",
                    1,
                    f"`{subject}` is a flag that traced code sets to {r[4]!r} under the test "
                    "that reads it: torch guards on its first value, so the next call "
                    "recompiles once",
                    _FIX["state"],
                )
            )
    return out


# a float literal assigned to an attribute of `self` (the cheap test before parsing a file for
# float state): `self.c = 0.0`, `self.c: float = 1e-3`
_DICT_INIT = re.compile(
    rb"self\.\w+\s*(?::[^=\n]*)?=\s*(?:\{\s*\}|(?:\w+\.)?(?:dict|Counter|defaultdict|OrderedDict)\()"
)
_FLOAT_INIT = re.compile(rb"self\.\w+\s*(?::[^=\n]*)?=\s*-?(?:\d+\.\d*|\.\d+|\d+[eE][-+]?\d+)")


def _self_flag(test: ast.expr) -> tuple[str, bool] | None:
    """``self.ready`` -> ("ready", True), ``not self.ready`` -> ("ready", False): the attribute
    an ``if`` tests and the truth its branch runs under."""
    truth = True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, False
    if (
        isinstance(test, ast.Attribute)
        and isinstance(test.value, ast.Name)
        and test.value.id == "self"
    ):
        return test.attr, truth
    return None


def _flags_set_by_methods(path: str, qual: str, cls: str) -> list[list[object]]:
    """``"flag"`` rows (as the guard recorder writes them: ``[self.attr, "flag", line, None,
    literal]``) for an ``if`` on a bool attribute of ``self`` whose branch calls a method of the
    same class that sets the attribute to the other literal: lazy initialisation through a helper
    (transformers' ``DynamicLayer.update``: ``if not self.is_initialized:
    self.lazy_initialization(...)``, which sets ``self.is_initialized = True``; torch 2.13
    recompiles the second call on ``self.layer.is_initialized == False`` at the ``if``)."""
    tree = parsed_tree(path)
    fnode = function_node(tree, qual) if tree is not None else None
    cnode = class_node(tree, cls) if tree is not None else None
    if fnode is None or cnode is None:
        return []
    methods = {
        n.name: n for n in cnode.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    out: list[list[object]] = []
    for node in own_nodes(fnode):
        if not isinstance(node, ast.If):
            continue
        flag = _self_flag(node.test)
        if flag is None:
            continue
        attr, truth = flag
        for stmt in node.body:
            for call in ast.walk(stmt):
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "self"
                    and call.func.attr in methods
                ):
                    continue
                for a in own_nodes(methods[call.func.attr]):
                    if (
                        isinstance(a, ast.Assign)
                        and isinstance(a.value, ast.Constant)
                        and isinstance(a.value.value, bool)
                        and a.value.value is not truth
                        and any(_self_flag(t) == (attr, True) for t in a.targets)
                    ):
                        out.append([f"self.{attr}", "flag", node.lineno, None, a.value.value])
                        break
                else:
                    continue
                break
            else:
                continue
            break
    return out
