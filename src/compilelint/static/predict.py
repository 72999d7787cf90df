"""Predict, without torch, what torch.compile will do with the spec's calls: graphs, breaks and
recompiles.

A consumer of the shared analyses: the project view (reachability from the spec's entry,
:mod:`compilelint.static.analysis.project`), the findings kept from it (break predictions), and
the guard facts phase 1 records per function (:mod:`compilelint.static.analysis.guards`). It
never imports torch or the model; the spec is read by :mod:`compilelint.dynamic.spec` (pure).

**Recompiles** are simulated the way dynamo's cache works (torch 2.13): the first call compiles
an entry guarded on what it read; each later call runs the newest entry whose guards pass, else
recompiles (the reason torch reports is the newest entry's first failing guard), until the
recompile limit (8) sends the frame to eager. The guards per argument mirror dynamo's variable
trackers:

- ``str``, ``bool``: ``ConstantVariable``, guarded on the value: each new value recompiles;
- ``None`` vs a tensor: guarded on ``is None``;
- ``int``, ``float``: guarded on the value on the first compile; a different value recompiles
  once and automatic dynamic shapes makes it a symbol, unless a use needs the constant
  (``range(n)``, a ``torch.nn.functional`` normalisation/dropout/interpolation): then every
  new value recompiles. A branch on a symbolic number guards on the branch's outcome; ints 0 and
  1 stay specialised;
- tensors: guarded on dtype and every size; the first size change recompiles once and marks the
  dim dynamic (``tensor 'x' size mismatch at index 1``);
- module state changed in traced code (CL501: an int counter, a list that grows) changes on
  every call: every call recompiles (``self.step == 3``, ``len(self.cache) == 2``);
- a Python number read from a tensor at a break (``.item()``, CL103) is an input of the resume
  function: new data recompiles it once, then the float is symbolic.

**Graphs** of the first call (what ``dynamic.graph_count`` counts): the entry frame makes one
graph, plus one per break on its path (dynamo compiles up to the break and resumes after it). A
break inside a ``for`` loop of the frame being compiled makes dynamo give up on that frame
(torch 2.13: "graph break in for loop" skips the frame): it runs eagerly, and the user
functions and modules it calls are compiled as frames of their own. A break in a called user
function (not in a loop) breaks the caller at the call, and the callee, run from the resume, is
compiled as its own frame.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilelint.model import Finding
from compilelint.static.analysis.breakpoints import is_break_rule
from compilelint.static.analysis.facts import Candidate, FunctionFacts
from compilelint.static.analysis.project import Project

FKey = tuple[str, str]
RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit (cache_size_limit) default
VALUE_BREAKS = frozenset({"CL102", "CL103"})  # breaks that hand a Python number to the resume
STATE_RULE = "CL501"
_SELF_ATTR = re.compile(r"`self\.(\w+)`")


@dataclass(frozen=True)
class BreakSite:
    path: str
    line: int
    rule: str
    function: str
    in_loop: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "rule": self.rule,
            "function": self.function,
            "in_loop": self.in_loop,
        }


@dataclass(frozen=True)
class PredictedRecompile:
    """One guard that fails, with how often over the spec's calls."""

    path: str
    line: int
    function: str
    subject: str  # what the guard is on, in the user's names: `top_k`, `x`, `self.step`
    guard: str  # the failed guard as torch's recompile reason writes it
    count: int
    reason: str
    fix: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "function": self.function,
            "subject": self.subject,
            "guard": self.guard,
            "count": self.count,
            "reason": self.reason,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Prediction:
    entry: str  # the spec's model (`model.py:Net`)
    function: str  # the predicted-for function (`model.py:Net.forward`), "" when not found
    calls: int
    graph_count: int
    graph_breaks: int
    recompiles: int
    hit_recompile_limit: bool = False
    break_sites: tuple[BreakSite, ...] = ()
    recompile_sites: tuple[PredictedRecompile, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # the files of the functions the entry reaches (not reported): where the prediction, which
    # knows the spec's calls, decides the recompiles the scan without a spec assumed
    files: tuple[str, ...] = ()
    # the (path, line) of each CL304 finding whose int the spec's calls cannot change
    # (:func:`settled_sizes`; not reported): with a spec the prediction decides them
    settled: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "function": self.function,
            "calls": self.calls,
            "graph_count": self.graph_count,
            "graph_breaks": self.graph_breaks,
            "recompiles": self.recompiles,
            "hit_recompile_limit": self.hit_recompile_limit,
            "break_sites": [b.to_json() for b in self.break_sites],
            "recompile_sites": [r.to_json() for r in self.recompile_sites],
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """``predicted: 2 graphs, 1 break, 3 recompiles over the spec's 4 calls``."""
        return (
            f"predicted: {_plural(self.graph_count, 'graph')}, "
            f"{_plural(self.graph_breaks, 'break')}, {_plural(self.recompiles, 'recompile')} "
            f"over the spec's {_plural(self.calls, 'call')}"
            + (" (recompile limit reached: eager from then on)" if self.hit_recompile_limit else "")
        )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


# ---------------------------------------------------------------------------- the spec's calls
Abstract = tuple[
    Any, ...
]  # ("T", shape, dtype, data, grad) | ("N",) | ("I"|"F"|"S"|"B", v) | ("L", items) | ("D", (k, v)...)
DEFAULT: Abstract = ("DEF",)
UNKNOWN: Abstract = ("?",)


def abstract(v: Any) -> Abstract:
    """A spec value as the guards see it (no tensors are made)."""
    if v is None:
        return ("N",)
    if isinstance(v, bool):
        return ("B", v)
    if isinstance(v, int):
        return ("I", v)
    if isinstance(v, float):
        return ("F", v)
    if isinstance(v, str):
        return ("S", v)
    if isinstance(v, list):
        return ("L", tuple(abstract(x) for x in v))
    if isinstance(v, dict):
        if "tensor" in v:
            data = v.get("data")
            grad = bool(v.get("requires_grad", False))
            return ("T", tuple(v["tensor"]), str(v.get("dtype", "float32")), data is not None, grad)
        if "tuple" in v:
            return ("L", tuple(abstract(x) for x in v["tuple"]))
        if "dict" in v:
            return ("D", tuple((str(k), abstract(x)) for k, x in v["dict"].items()))
    return UNKNOWN


def spec_calls(spec: Any) -> list[tuple[list[Abstract], dict[str, Abstract]]]:
    """The calls the dynamic stage makes, in order: the inputs ``calls`` times, then each
    variant (its own inputs, the spec's kwargs updated by its kwargs) its ``calls`` times."""
    base = [abstract(a) for a in spec.inputs] if spec.inputs_given else None
    kw = {k: abstract(v) for k, v in spec.kwargs.items()}
    out: list[tuple[list[Abstract], dict[str, Abstract]]] = []
    first = (list(base) if base is not None else [UNKNOWN], dict(kw))
    out.extend([first] * max(1, spec.calls))
    for var in spec.variants:
        args = [abstract(a) for a in var["inputs"]] if "inputs" in var else first[0]
        vkw = dict(kw)
        vkw.update({k: abstract(v) for k, v in var.get("kwargs", {}).items()})
        out.extend([(args, vkw)] * int(var.get("calls", 1)))
    return out


# ---------------------------------------------------------------------------- the entry
def _norm(p: str) -> str:
    return os.path.normcase(os.path.realpath(p))


def find_entry(project: Project, model: str, spec_dir: str) -> FKey | None:
    """The function torch.compile is handed for ``file.py:Name``: the class's ``forward``
    (through its MRO), a compiled function itself, or, for a factory, the ``forward`` of the
    module class it builds."""
    target, _, name = model.rpartition(":")
    cands = [os.path.join(spec_dir, target), target]
    want = {_norm(c) for c in cands}
    path = next((p for p in project.files if _norm(p) in want), None)
    if path is None:  # a dotted module name
        path = project.modules.get(target)
    if path is None:
        return None
    return _entry_in(project, path, name)


def _entry_in(project: Project, path: str, name: str, depth: int = 0) -> FKey | None:
    f = project.files[path]
    if name in f.classes:
        for p, q in project.mro(path, name):
            if f"{q}.forward" in project.files[p].functions:
                return (p, f"{q}.forward")
        return None
    fn = f.functions.get(name)
    if fn is None or depth > 2:
        return None
    if fn.compiled or fn.name == "forward":
        return (path, name)
    for c in fn.calls:  # a factory: the first module class it builds
        r = project.resolve(path, c.ref)
        if r is not None and r[2] == "class":
            got = _entry_in(project, r[0], r[1], depth + 1)
            if got is not None:
                return got
    return (path, name)


def reachable(project: Project, entry: FKey) -> list[FKey]:
    out: list[FKey] = []
    seen = {entry}
    stack = [entry]
    while stack:
        k = stack.pop()
        out.append(k)
        for c in project.callees(k):
            if c not in seen and c[1] in project.files.get(c[0], _NOFILE).functions:
                if project.opaque_to_dynamo(c):
                    continue
                seen.add(c)
                stack.append(c)
    return out


class _NoFile:
    functions: Mapping[str, Any] = {}


_NOFILE = _NoFile()


# ---------------------------------------------------------------------------- breaks and graphs
def _candidate_in_loop(project: Project, path: str, line: int, code: str) -> tuple[str, bool]:
    f = project.files.get(path)
    if f is None:
        return "", False
    for c in f.candidates:
        if c.line == line and c.code == code:
            return c.func, c.in_loop
    return "", False


def break_sites(
    project: Project,
    keys: Iterable[FKey],
    findings: Sequence[Finding],
    catalog: Any,
    source: Callable[[str], bytes | None] | None = None,
) -> list[BreakSite]:
    funcs = {k for k in keys}
    out: list[BreakSite] = []
    seen: set[tuple[str, int]] = set()
    for f in findings:
        rule = catalog.rules.get(f.rule) if catalog is not None else None
        if rule is None or not is_break_rule(rule) or f.stage == "dynamic":
            continue
        func, in_loop = _candidate_in_loop(project, f.path, f.line, f.rule)
        if (f.path, func) not in funcs or (f.path, f.line) in seen:
            continue
        if "latent:" in f.message:
            continue  # only some inputs reach the tensor part
        if f.behind is not None:
            continue  # torch runs the frame eagerly from an earlier loop break
        seen.add((f.path, f.line))
        out.append(BreakSite(f.path, f.line, f.rule, func, in_loop))
    return [b for b in out if not _under_data_branch(b, out, source)]


BRANCH_BREAKS = frozenset({"CL101", "CL104"})  # a branch (or assert) on a tensor's value


def _source_lines(path: str, source: Callable[[str], bytes | None] | None = None) -> list[str]:
    """The lines of ``path``: the scan's text (``source``: the editor's buffer), else the
    file on disk."""
    try:
        return _read(path, source).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return []


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _under_data_branch(
    b: BreakSite,
    sites: Sequence[BreakSite],
    source: Callable[[str], bytes | None] | None = None,
) -> bool:
    """A break in the body of an ``if`` whose condition is a tensor's value (itself a break):
    dynamo breaks at the condition and only meets the body when the data takes it."""
    heads = [
        s
        for s in sites
        if s.rule in BRANCH_BREAKS
        and s.path == b.path
        and s.function == b.function
        and s.line < b.line
    ]
    if not heads:
        return False
    lines = _source_lines(b.path, source)
    for h in heads:
        if not (0 < h.line <= len(lines) and b.line <= len(lines)):
            continue
        head = lines[h.line - 1]
        if not head.lstrip().startswith(("if ", "elif ", "while ")):
            continue
        base = _indent(head)
        body = all(not ln.strip() or _indent(ln) > base for ln in lines[h.line : b.line])
        if body:
            return True
    return False


def _breaks_in(
    project: Project,
    by_fn: Mapping[FKey, Sequence[BreakSite]],
    k: FKey,
    memo: dict[FKey, bool],
    stack: frozenset[FKey] = frozenset(),
) -> bool:
    """Whether ``k`` breaks, itself or in the user code it calls."""
    if k in memo:
        return memo[k]
    if k in stack:
        return False
    got = bool(by_fn.get(k)) or any(
        _breaks_in(project, by_fn, c, memo, stack | {k}) for c, _loop in _user_calls(project, k)
    )
    memo[k] = got
    return got


def _breaking_loop_calls(project: Project, k: FKey, sites: Sequence[BreakSite]) -> list[int]:
    """The lines of ``k``'s calls in loops whose callee breaks: dynamo skips ``k``'s frame there
    as at a break in the loop itself."""
    by_fn: dict[FKey, list[BreakSite]] = {}
    for b in sites:
        by_fn.setdefault((b.path, b.function), []).append(b)
    memo: dict[FKey, bool] = {}
    out: list[int] = []
    for c in project.fn(k).calls:
        if not c.in_loop or not c.line:
            continue
        t = project._target(k[0], c.ref)
        if t is None or t[0] == k or project.opaque_to_dynamo(t[0]):
            continue
        if project.fn(t[0]).name != "__init__" and _breaks_in(project, by_fn, t[0], memo):
            out.append(c.line)
    return out


def graph_count(project: Project, entry: FKey, sites: Sequence[BreakSite]) -> int:
    """Graphs compiled by the first call (see the module docstring)."""
    by_fn: dict[FKey, list[BreakSite]] = {}
    for b in sites:
        by_fn.setdefault((b.path, b.function), []).append(b)
    memo_breaks: dict[FKey, bool] = {}

    def breaks_in(k: FKey) -> bool:
        return _breaks_in(project, by_fn, k, memo_breaks)

    compiled: set[FKey] = set()

    def frame(k: FKey, depth: int = 0) -> int:
        """Graphs made when ``k`` runs as a frame dynamo starts at (once per code object)."""
        if k in compiled or depth > 12:
            return 0
        compiled.add(k)
        direct = by_fn.get(k, [])
        calls = _user_calls(project, k)
        breaking = [(c, loop) for c, loop in calls if breaks_in(c)]
        if not direct and not breaking:
            return 1
        if any(b.in_loop for b in direct) or any(loop for _c, loop in breaking):
            # dynamo skips the frame; the user code it calls runs as frames of its own
            return sum(frame(c, depth + 1) for c in dict.fromkeys(c for c, _l in calls))
        segments = len({b.line for b in direct}) + len(breaking) + 1
        if _empty_tail(project, k, direct, [c for c, _l in breaking]):
            segments -= 1  # the resume function after the last break only returns
        return segments + sum(frame(c, depth + 1) for c in dict.fromkeys(c for c, _l in breaking))

    return frame(entry)


_VALUE_READS = frozenset({"CL102", "CL103", "CL105"})  # `int(t)`, `t.item()`, `t.tolist()`


def _empty_tail(
    project: Project, k: FKey, direct: Sequence[BreakSite], breaking: Sequence[FKey]
) -> bool:
    """Whether the last break of frame ``k`` is the outermost call of its final ``return``
    (``return self.head(h)`` with a callee that breaks, ``return t.sum().item()``): its
    arguments ran before it, in the graph before the break, and the resume function after it
    only returns a value: it makes no graph, and torch counts none (torch 2.13, `explain`'s
    graph count). Not when a call is made on the result (``return self.head(h).relu()``)."""
    tree = _parsed(k[0])
    fn = _function_node(tree, k[1]) if tree is not None else None
    if fn is None or not fn.body or not isinstance(fn.body[-1], ast.Return):
        return False
    call = fn.body[-1].value
    if not isinstance(call, ast.Call):
        return False
    wanted = set(breaking)
    sites = [
        c
        for c in project.fn(k).calls
        if c.line and (t := project._target(k[0], c.ref)) is not None and t[0] in wanted
    ]
    lines = {b.line for b in direct} | {c.line for c in sites}
    if not lines or max(lines) != call.lineno:
        return False
    last = [b for b in direct if b.line == call.lineno]
    if last:  # a direct break there: the return's call must be the value read itself
        f = call.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return all(b.rule in _VALUE_READS for b in last) and name in {
            "item",
            "tolist",
            "int",
            "float",
            "bool",
        }
    # a callee's break: the breaking call is the return's outermost call, on no call's result
    return not any(isinstance(n, ast.Call) for n in ast.walk(call.func)) and any(
        c.line == call.lineno and c.col == call.col_offset + 1
        for c in sites  # 1-based
    )


# calls that make no graph op: a value read that breaks, Python's own conversions and JSON,
# and the methods that fill a Python container of the module (``self.records.append(r)``)
_PLAIN_CALLS = frozenset({"item", "tolist", "int", "float", "bool", "str", "round", "dumps"})
_FILL_METHODS = frozenset({"append", "extend", "add", "update", "appendleft"})


def _is_self_state(e: ast.expr) -> bool:
    """``self.a``, ``self.a.b``, ``self.a[k]``."""
    while isinstance(e, (ast.Attribute, ast.Subscript)):
        e = e.value
    return isinstance(e, ast.Name) and e.id == "self"


def _plain_value(e: ast.expr, numbers: set[str]) -> bool:
    """An expression of Python values only: constants, names of :func:`graphless_tail`'s
    numbers, displays and arithmetic of those, and calls of :data:`_PLAIN_CALLS`."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in numbers
    if isinstance(e, ast.BinOp):
        return _plain_value(e.left, numbers) and _plain_value(e.right, numbers)
    if isinstance(e, ast.UnaryOp):
        return _plain_value(e.operand, numbers)
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(_plain_value(x, numbers) for x in e.elts)
    if isinstance(e, ast.Dict):
        return all(_plain_value(x, numbers) for x in [*e.keys, *e.values] if x is not None)
    if isinstance(e, ast.Subscript):  # self.hist[p]
        return _is_self_state(e) and _plain_value(e.slice, numbers)
    if isinstance(e, ast.Attribute):
        return _is_self_state(e)
    return False


def graphless_tail(fn: ast.FunctionDef | ast.AsyncFunctionDef, last: int) -> tuple[int, int] | None:
    """The lines (first, last) of the resume function after the frame's last break at line
    ``last`` (after the break's statement, or its loop's body), where it makes no graph: the break's statement is a top-level statement of the
    function that stores what the break read (``self.total += loss.item()``, ``rec =
    json.dumps({"m": h.max().item()})``, ``for p in preds.tolist():``), and every statement after
    it only moves Python values: stores into module state or names (``self.n += 1``,
    ``self.hist[p] += 1``), fills a container of the module (``self.records.append(rec)``), and
    returns names. dynamo compiles no graph for it, so it installs no guard there: a change of
    module state there never recompiles (checked on torch 2.13: a list appended to after an
    ``.item()`` break recompiles only when a tensor op follows the append). None otherwise."""
    body = fn.body
    idx = next(
        (i for i, st in enumerate(body) if st.lineno <= last <= (st.end_lineno or st.lineno)),
        None,
    )
    if idx is None:
        return None
    numbers: set[str] = set()

    def targets(t: ast.expr) -> bool:
        if _is_self_state(t):
            return True
        if isinstance(t, ast.Name):
            numbers.add(t.id)
            return True
        if isinstance(t, (ast.Tuple, ast.List)):
            return all(targets(x) for x in t.elts)
        return False

    def value_read(e: ast.expr) -> bool:  # the break's statement: its outer calls are plain
        return isinstance(e, ast.Call) and (
            (isinstance(e.func, ast.Attribute) and e.func.attr in _PLAIN_CALLS)
            or (isinstance(e.func, ast.Name) and e.func.id in _PLAIN_CALLS)
        )

    def plain(st: ast.stmt) -> bool:
        if isinstance(st, ast.Return):
            return (
                st.value is None
                or isinstance(st.value, ast.Name)
                or (
                    isinstance(st.value, ast.Tuple)
                    and all(isinstance(x, ast.Name) for x in st.value.elts)
                )
            )
        if isinstance(st, ast.Assign):
            return _plain_value(st.value, numbers) and all(targets(t) for t in st.targets)
        if isinstance(st, ast.AugAssign):
            return _plain_value(st.value, numbers) and targets(st.target)
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            f = st.value.func
            return (
                isinstance(f, ast.Attribute)
                and f.attr in _FILL_METHODS
                and _is_self_state(f.value)
                and all(_plain_value(a, numbers) for a in st.value.args)
            )
        if isinstance(st, ast.For) and not st.orelse and targets(st.target):
            return all(plain(x) for x in st.body)
        return False

    st = body[idx]
    if isinstance(st, (ast.Assign, ast.AugAssign)) and st.value is not None:
        value, tgts = st.value, (st.targets if isinstance(st, ast.Assign) else [st.target])
        if not value_read(value) or not all(targets(t) for t in tgts):
            return None
    elif isinstance(st, ast.For) and not st.orelse and value_read(st.iter):
        if not targets(st.target) or not all(plain(x) for x in st.body):
            return None
    else:
        return None
    if not all(plain(x) for x in body[idx + 1 :]):
        return None
    # the break's own statement reads what it stores into before the break, in the graph
    # before it (`self.total += loss.item()` guards `self.total` there): the tail starts after
    # it, or in the loop's body
    start = st.body[0].lineno if isinstance(st, ast.For) else (st.end_lineno or st.lineno) + 1
    end = body[-1].end_lineno or body[-1].lineno
    return (start, end) if start <= end else None


def graphless_lines(
    project: Project, sites: Sequence[BreakSite]
) -> dict[str, list[tuple[int, int]]]:
    """By file, the line ranges of :func:`graphless_tail` of each frame with a break outside a
    loop (a break in a loop makes dynamo skip the frame: none of its lines is compiled)."""
    last: dict[FKey, int] = {}
    for b in sites:
        k = (b.path, b.function)
        if not b.in_loop:
            last[k] = max(last.get(k, 0), b.line)
    out: dict[str, list[tuple[int, int]]] = {}
    for (path, qual), line in sorted(last.items()):
        tree = _parsed(path)
        fn = _function_node(tree, qual) if tree is not None else None
        got = graphless_tail(fn, line) if fn is not None else None
        if got is not None:
            out.setdefault(path, []).append(got)
    return out


def _user_calls(project: Project, k: FKey) -> list[tuple[FKey, bool]]:
    fn = project.fn(k)
    out: list[tuple[FKey, bool]] = []
    for c in fn.calls:
        t = project._target(k[0], c.ref)
        if t is None or t[0] == k:
            continue
        callee = project.fn(t[0])
        if project.opaque_to_dynamo(t[0]) or callee.name == "__init__":
            continue
        out.append((t[0], c.in_loop))
    return out


# ---------------------------------------------------------------------------- recompiles
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


def _bind(
    fn: FunctionFacts, args: list[Abstract], kwargs: Mapping[str, Abstract]
) -> dict[str, Abstract]:
    """Each parameter's value in one call; a left-out argument takes its default (a literal
    default's value is known from the guard facts; ``None`` defaults are ``None``)."""
    params = [p for p in fn.params if p.name not in ("self", "cls") or p.index != 0]
    if args == [UNKNOWN]:
        return {p.name: UNKNOWN for p in params}
    defaults = {r[0]: abstract(r[4]) for r in fn.guards if r[1] == "default"}
    out: dict[str, Abstract] = {}
    pos = [p for p in params if p.index >= 0]
    for i, p in enumerate(pos):
        if i < len(args):
            out[p.name] = args[i]
    for p in params:
        if p.name in kwargs:
            out[p.name] = kwargs[p.name]
        if p.name not in out:
            if p.index in (-2, -3):
                out[p.name] = DEFAULT
            else:
                out[p.name] = defaults.get(p.name, ("N",) if p.default == "none" else DEFAULT)
    return out


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
    target = project._target(key[0], site.ref)
    if target is None or project.opaque_to_dynamo(target[0]):
        return None
    (cpath, cqual), implicit = target
    if _installed(cpath):
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


def _installed(path: str) -> bool:
    """A file of an installed package (site-packages), not the user's code."""
    parts = path.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts


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


_TYPE_GUARD = "expected type of "  # a tensor input's type guard (torch 2.13's wording)


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
    tree = _parsed(path)
    if tree is None or "." not in qual:
        return None
    fn = _function_node(tree, qual)
    cls = _class_node(tree, qual.rsplit(".", 1)[0])
    if fn is None or cls is None:
        return None
    held: set[str] = set()
    for n in ast.walk(cls):
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and _key_of(n.targets[0]).startswith("self.")
            and isinstance(n.value, ast.Call)
        ):
            f = n.value.func
            callee = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if callee in _CONTAINERS:
                held.add(_key_of(n.targets[0]))
    lines = [
        n.lineno
        for n in _own_nodes(fn)
        if isinstance(n, ast.Subscript)
        and _key_of(n.value) in held
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
    tree = _parsed(path)
    if tree is None or "." not in qual:
        return {}
    fn = _function_node(tree, qual)
    cls = _class_node(tree, qual.rsplit(".", 1)[0])
    init = _function_node(tree, f"{qual.rsplit('.', 1)[0]}.__init__")
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
                k = _key_of(e) if isinstance(e, ast.Attribute) else ""
                if k.startswith("self.") and k.count(".") == 1:
                    stores[k] = stores.get(k, 0) + 1
    consts: dict[str, Any] = {}
    for st in init.body:
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Attribute)
        ):
            k = _key_of(st.targets[0])
            if k.startswith("self.") and stores.get(k) == 1:
                ok, v = _init_value(init, st.value, args, kwargs)
                if ok:
                    consts[k] = v
    if not consts:
        return {}
    out: dict[int, tuple[str, Any]] = {}
    seen: dict[int, int] = {}
    for n in _own_nodes(fn):
        if not isinstance(n, ast.Compare) or len(n.ops) != 1:
            continue
        op = _CMP_OPS.get(type(n.ops[0]))
        seen[n.lineno] = seen.get(n.lineno, 0) + 1
        left, right = _key_of(n.left), _key_of(n.comparators[0])
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
    tree = _parsed(path)
    fn = _function_node(tree, qual) if tree is not None else None
    if fn is None:
        return None

    def this(e: ast.AST) -> bool:
        return isinstance(e, ast.Name) and e.id == name

    def key_of(e: ast.AST | None) -> str | None:
        return e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None

    out: dict[str, int] = {}
    keyed: set[int] = set()  # the ids of the reads of `name` that name a key
    for n in _own_nodes(fn):
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
    if any(this(n) and id(n) not in keyed for n in _own_nodes(fn)):
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


_FIX = {
    "specialized": "pass it as a 0-d tensor (`torch.tensor(v)`), or make it a constant of the "
    "module (set in `__init__`); `torch._dynamo.mark_dynamic` does not help a value a "
    "`range()`/functional op needs as a constant",
    "number": "one recompile, then torch keeps it symbolic: compile with `dynamic=True` to "
    "skip it, or pass a tensor",
    "string": "each distinct value compiles its own graph: keep the set of values small, or "
    "move the choice out of the compiled function (one compiled callable per value)",
    "key": "pass the same keys on every call (a missing one as `None`, tested with `is None`), "
    "or choose outside the compiled model",
    "grown": "preallocate the tensor at its largest size and write into it in place "
    "(`self.cache[:, pos : pos + t] = k`), or keep it outside the compiled module and pass it in",
    "grad": "pass inputs with one `requires_grad` setting (`x.detach()`, or "
    "`x.requires_grad_()` on every call), or accept one entry per setting",
    "none": "each combination of `None`/tensor compiles once: pass a tensor every call (e.g. "
    "an all-ones mask) to keep one graph",
    "tensor": "one recompile, then the dim is dynamic: `torch._dynamo.mark_dynamic(x, dim)` "
    "(or `dynamic=True`) before the first call compiles it dynamic at once",
    "state": "move the counter or cache out of the compiled region, or keep it in a tensor "
    "buffer updated in place (`self.step.add_(1)`)",
    "size": "remove the graph break in the called function, or compute the int there from "
    "its tensor arguments' shapes (`h.shape[1]`) instead of passing it in",
    "break": "the number comes from a graph break (`.item()`): keep it a tensor, or set "
    "`torch._dynamo.config.capture_scalar_outputs = True`",
    "loop": "one recompile, then the number is symbolic: keep the loop's counter in a tensor, or "
    "decide the loop's end with tensor ops (a mask, `torch.cumprod`) instead of a data-dependent "
    "`while`",
    "draw": "the number comes from a call dynamo does not trace (a `random` draw, a `time` "
    "clock): take it outside the compiled region and pass it in as a tensor, or draw it with "
    "torch (`torch.rand(())`)",
}


def _kind_of(subject: str, guard: str) -> str:
    if subject.startswith("self."):
        return "state"
    if guard.startswith("tensor "):
        return "tensor"
    if " is None" in guard or " is not None" in guard or guard.startswith(_TYPE_GUARD):
        return "none"
    if re.search(r"== '", guard) or guard.endswith(("True", "False")):
        return "string"
    return "number"


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
            if all(len(r) <= 5 for r in p.rows):
                # a string is a constant guarded where traced code first reads it (torch 2.13:
                # `task == 'cls'` at `getattr(self, f"head_{task}")`, not at a later `if`)
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


def _number_recompiles(
    project: Project,
    roots: Sequence[FKey],
    value_breaks: Sequence[BreakSite],
    calls: int,
    data: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
    sites: Sequence[BreakSite] = (),
) -> list[PredictedRecompile]:
    """A number a break produced (``.item()``, a ``random`` draw) is an input of the resume
    function: torch guards on its value where it is first used (:func:`value_use_line`), and
    recompiles once it differs between the resume function's runs: a draw on every run, a
    number read from a tensor when the data does (``data`` calls bring new tensors, or a
    method runs more than once per call of a root, from two call sites: one module class held
    by two attributes, each with its own layer's tensors); then the number is symbolic. ``calls``/``data`` of 2 stand for "more than one"
    where no spec gives them. ``sites``: every break site, for the breaks the resume function
    meets later (:func:`number_guard_lines`)."""
    out: list[PredictedRecompile] = []
    seen: set[tuple[str, int]] = set()
    for b in value_breaks:
        draw = b.rule == "CL205"
        # a number read from a tensor the graph drew (`torch.rand` before the break, in the
        # break's function): new on every call, whatever the inputs
        fresh = not draw and calls >= 2 and _drawn_in_graph(project, b, source, known)
        if fresh:
            data = max(data, calls)
        if not draw and data < 2 and not project.fn((b.path, b.function)).cls:
            # within one call only a method's runs are known to see other data (one class
            # held by two attributes: two layers' tensors); a helper function called twice
            # may be given one tensor twice
            continue
        per = calls if draw else data
        memo: dict[FKey, int] = {}
        runs = 0
        for r in roots:
            if (per >= 2 and runs >= 1) or runs >= 2:
                break
            runs = max(runs, _runs_per_call(project, r, (b.path, b.function), memo=memo))
        if runs * per < 2:
            continue
        later = [s for s in sites if s.path == b.path and s.function == b.function]
        loop_calls = _breaking_loop_calls(project, (b.path, b.function), sites)
        changes = "is drawn anew on every run" if draw else "changes with the data"
        if fresh:
            changes = "changes on every call (it is read from a tensor the graph draws at random)"
        if runs > 1 and not draw:
            changes += " (its function runs more than once per call)"
        for line, subject, at in number_guard_lines(
            b.path, b.line, later, draw, source, known, loop_calls
        ):
            if (b.path, line) in seen:
                continue
            seen.add((b.path, line))
            where = (
                f"; torch guards it at the break at line {line}, where the resume function "
                "hands it on"
                if at == "break"
                else ""
            )
            out.append(
                PredictedRecompile(
                    b.path,
                    line,
                    b.function.rsplit(".", 1)[-1],
                    subject,
                    f"{subject} == <the value of the first call>",
                    1,
                    f"the Python number the break at line {b.line} produces {changes}: "
                    f"the resume function recompiles once, then the number is symbolic{where}",
                    _FIX["draw" if draw else "break"],
                )
            )
    return out


# torch's random tensor ops: a graph that calls one draws new values on every run
_GRAPH_DRAWS = frozenset(
    {
        "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
        "bernoulli", "bernoulli_", "multinomial", "normal", "normal_", "uniform_", "dropout",
        "exponential_", "geometric_", "cauchy_", "log_normal_", "random_", "poisson",
    }
)  # fmt: skip


def _drawn_in_graph(
    project: Project,
    b: BreakSite,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> bool:
    """Whether the number the break reads comes from one of torch's random ops
    (:data:`_GRAPH_DRAWS`, as ``torch.rand(...)``, ``F.dropout(...)`` or a method
    ``t.bernoulli_()``) called before the break's line where every call runs it (outside
    ``if``/``try`` and loops, or under ``if self.training:`` when the compile context's mode is
    train): the break's statement reads a name (or ``self.<attr>``) bound from the draw, through
    the assignments between. The number then differs between calls even with the same inputs
    (torch 2.13: timm's drop-path statistics recompile the resume function once); a draw the
    number does not read changes nothing."""
    tree = _parsed(b.path, source, known)
    fn = _function_node(tree, b.function) if tree is not None else None
    if fn is None:
        return False

    def surely(stmts: list[ast.stmt]) -> Iterable[ast.stmt]:
        for st in stmts:
            if isinstance(st, ast.If):
                t = st.test
                training = (
                    isinstance(t, ast.Attribute)
                    and t.attr == "training"
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "self"
                )
                if training and getattr(project, "mode", None) == "train":
                    yield from surely(st.body)
                continue
            if isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With)):
                continue
            yield st

    def draws(node: ast.AST) -> list[ast.Call]:
        return [
            n
            for n in ast.walk(node)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _GRAPH_DRAWS
        ]

    # the names (and ``self.<attr>``s) whose value comes from a draw: bound by a statement that
    # draws or that reads one of them, in the surely-run statements before the break
    tainted: set[str] = set()
    for st in surely(fn.body):
        if st.lineno >= b.line:
            break
        drawn = draws(st)
        if not drawn and not _reads_any(st, tainted):
            continue
        tainted |= _bound_keys(st)
        for d in drawn:  # an in-place draw (`t.bernoulli_(p)`) changes its receiver
            if isinstance(d.func, ast.Attribute) and d.func.attr.endswith("_"):
                key = _key_of(d.func.value)
                if key:
                    tainted.add(key)
    if not tainted:
        return False
    # the statement that reads the number must read a drawn value (or draw itself)
    here = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno == b.line]
    return any(draws(st) or _reads_any(st, tainted) for st in here)


def _key_of(e: ast.AST) -> str:
    """``x`` for a name, ``self.x`` for an attribute of ``self``, else ``""``."""
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        return f"self.{e.attr}"
    return ""


def _bound_keys(st: ast.stmt) -> set[str]:
    """What a statement binds: its assignment targets (tuples unpacked), and the receiver of
    an in-place method call statement (``x.mul_(m)``)."""
    targets: list[ast.AST] = []
    if isinstance(st, ast.Assign):
        targets = list(st.targets)
    elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
        targets = [st.target]
    elif (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr.endswith("_")
    ):
        targets = [st.value.func.value]
    out: set[str] = set()
    while targets:
        t = targets.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        elif isinstance(t, ast.Starred):
            targets.append(t.value)
        elif key := _key_of(t):
            out.add(key)
    return out


def _reads_any(node: ast.AST, keys: set[str]) -> bool:
    if not keys:
        return False
    for n in ast.walk(node):
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            if _key_of(n) in keys:
                return True
    return False


def number_guard_lines(
    path: str,
    line: int,
    later: Sequence[BreakSite],
    draw: bool = False,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
    loop_calls: Sequence[int] = (),
) -> list[tuple[int, str, str]]:
    """The lines torch 2.13 guards a number the break at ``line`` hands the resume function
    on, with the guard's subject and why (``"use"`` or ``"break"``): its first use
    (:func:`value_use_line`, as ``___stack0``); but when the number is stored in a name and
    another break of the function (``later``: the function's break sites) comes between the
    store and that use, the resume function hands the number on at that break, which guards
    it there (``___stack0``), and the next resume function guards the name where it is then
    used (``n``; checked: an `.item()` int, an `.item()` float, a `random` draw, a `time`
    clock; one break or two between, a break in a taken branch). A break in a loop after the
    number, or a call in a loop whose callee breaks (``loop_calls``: their lines), makes torch
    skip the resume function (it runs eagerly) when it surely runs: no guard, no recompile."""
    use = value_use_line(path, line, draw, source, known)
    if use is None:
        return []
    breaks = sorted({s.line for s in later if not s.in_loop and s.line > line})
    skips = sorted(
        at
        for at in {s.line for s in later if s.in_loop} | set(loop_calls)
        if at > line and _surely_runs(path, at, source, known)
    )
    # the resume functions after ``line``: each runs from one break to the next; one that meets
    # a skip point runs eagerly, and so does everything after it (no further resume functions)
    bounds = [line, *(b for b in breaks if b < use)]
    ends = [*bounds[1:], next((b for b in breaks if b >= use), None)]
    out: list[tuple[int, str, str]] = []
    if len(bounds) > 1:
        out.append((bounds[1], "___stack0", "break"))
    subject = "___stack0" if len(bounds) == 1 else _number_name(path, line, draw, source, known)
    for k, (start, end) in enumerate(zip(bounds, ends, strict=True)):
        if any(start < at and (end is None or at < end) for at in skips):
            return out if k else []  # the first resume function skipped: nothing is guarded
    return [*out, (use, subject or "___stack0", "use")]


def _surely_runs(
    path: str,
    line: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> bool:
    """Whether the statement at ``line`` runs whenever its function's body reaches it: no
    ``if``/``try``/``match`` between the function and the statement, no short-circuit or
    conditional expression in it (``if self.training and random.random() < p:`` breaks in
    training mode only)."""
    tree = _parsed(path, source, known)
    if tree is None:
        return False
    from compilelint.static.analysis.state import holder_of

    holder = holder_of(tree, line)
    if holder is None:
        return False
    node: ast.AST = holder
    while True:
        child = next(
            (
                c
                for c in ast.iter_child_nodes(node)
                if isinstance(c, ast.stmt) and c.lineno <= line <= (c.end_lineno or c.lineno)
            ),
            None,
        )
        if child is None:
            break
        if child.lineno == line or isinstance(child, (ast.If, ast.Try, ast.Match)):
            node = child
            break
        node = child
    if isinstance(node, (ast.Try, ast.Match)) or (isinstance(node, ast.If) and node.lineno != line):
        return False
    head = node.test if isinstance(node, (ast.If, ast.While)) else node
    return not any(isinstance(n, (ast.BoolOp, ast.IfExp)) for n in ast.walk(head))


def _number_name(
    path: str,
    line: int,
    draw: bool = False,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> str | None:
    """The name the statement at ``line`` stores the number in (``n = x.item()``), if one."""
    _holder, stmt = _statement_at(path, line, source, known)
    names = sorted(_stored_numbers(stmt, draw)) if stmt is not None else []
    return names[0] if len(names) == 1 else None


def number_breaks(
    sites: Iterable[BreakSite],
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[BreakSite]:
    """The breaks that hand the resume function a Python number (``.item()``, ``int(t)``, a
    ``random`` draw or ``time`` clock dynamo does not trace), outside loops (a break in a loop
    skips the frame: no resume function)."""
    return [
        b
        for b in sites
        if not b.in_loop
        and (
            b.rule in VALUE_BREAKS
            or (b.rule == "CL205" and number_break(b.path, b.line, source, known))
        )
    ]


def _statement_at(
    path: str,
    line: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> tuple[ast.AST | None, ast.stmt | None]:
    """The function holding ``line`` of ``path`` (``state.holder_of``) and its statement that
    starts there, each None when not found."""
    tree = _parsed(path, source, known)
    if tree is None:
        return None, None
    from compilelint.static.analysis.state import holder_of

    holder = holder_of(tree, line)
    if holder is None:
        return None, None
    stmt = next(
        (
            n
            for n in ast.walk(holder)
            if isinstance(n, ast.stmt) and n.lineno == line and n is not holder
        ),
        None,
    )
    return holder, stmt


def value_use_line(
    path: str,
    line: int,
    draw: bool = False,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> int | None:
    """Where the resume function after a break that reads a number from a tensor (``.item()``
    at ``line``) first uses that number, which is where torch 2.13 reports the guard on it
    (``___stack0 == 3.0``): the break's own line when its statement goes on with the number
    (``if x.sum().item() > t:``, ``n = int(x.item())``), else, when the statement only stores
    it in a name (``n = x.sum().item()``), the first later line of the function reading that
    name; None when no later line reads the name or every later read returns the number as it
    is (torch guards a number where traced code uses it, and an output not: no recompile);
    ``line + 1`` when the statement is not found. ``source``: the scan's text of a file
    (the editor's buffer), else the file on disk."""
    holder, stmt = _statement_at(path, line, source, known)
    if holder is None or stmt is None:
        return line + 1
    names = _stored_numbers(stmt, draw)
    if not names:
        return line
    # a number only returned as it is (`return y, start`) is an output, not guarded (torch 2.13)
    passed = {
        id(e)
        for r in ast.walk(holder)
        if isinstance(r, ast.Return) and r.value is not None
        for e in (r.value.elts if isinstance(r.value, (ast.Tuple, ast.List)) else [r.value])
    }
    reads = [
        n
        for n in ast.walk(holder)
        if isinstance(n, ast.Name)
        and n.id in names
        and isinstance(n.ctx, ast.Load)
        and n.lineno > (stmt.end_lineno or line)
    ]
    used = [n.lineno for n in reads if id(n) not in passed]
    if not used:
        # never read again, or only returned as it is: torch guards a number where traced
        # code uses it (lazily), so an unused one is not guarded (torch 2.13: no recompile)
        return None
    return min(used)


def _is_read_out(e: ast.expr, draw: bool = False) -> bool:
    """``t.item()`` / ``t.tolist()``: a number read from a tensor, nothing done with it yet;
    with ``draw``, any call (the break's draw, ``r = random.random()``)."""
    return isinstance(e, ast.Call) and (
        draw or (isinstance(e.func, ast.Attribute) and e.func.attr in ("item", "tolist"))
    )


def _stored_numbers(stmt: ast.stmt, draw: bool = False) -> set[str]:
    """The names a statement only stores numbers read from tensors in: ``n = x.item()``, and
    ``lo, hi = lo.item(), hi.item()`` (each element a read-out); empty when the statement goes
    on with a number (``if x.item() > t:``, ``n = int(x.item()) + 1``)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return set()
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and _is_read_out(value, draw):
        return {target.id}
    if (
        isinstance(target, ast.Tuple)
        and isinstance(value, ast.Tuple)
        and len(target.elts) == len(value.elts)
        and all(isinstance(t, ast.Name) for t in target.elts)
        and all(_is_read_out(v, draw) for v in value.elts)
    ):
        return {t.id for t in target.elts if isinstance(t, ast.Name)}
    return set()


# `random` draws dynamo does not trace (CL205: a break whose call returns a new number on every
# run), and the clocks of `time`
_DRAWS = {
    "random": frozenset(
        {
            "random",
            "gauss",
            "normalvariate",
            "lognormvariate",
            "expovariate",
            "betavariate",
            "gammavariate",
            "triangular",
            "getrandbits",
            "vonmisesvariate",
            "paretovariate",
            "weibullvariate",
        }
    ),
    "time": frozenset({"time", "perf_counter", "monotonic", "process_time", "time_ns"}),
}


def number_break(
    path: str,
    line: int,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> str | None:
    """What the break at ``line`` hands the resume function when it is a Python number that
    differs between runs: ``"draw"`` for a call of a ``random`` draw or a ``time`` clock (the
    module imported under any name, or the function imported from it), else ``None`` (a
    ``.item()`` break's number follows the data: the caller decides)."""
    tree = _parsed(path, source, known)
    if tree is None:
        return None
    modules: dict[str, str] = {}
    funcs: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in _DRAWS:
                    modules[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module in _DRAWS and not node.level:
            for a in node.names:
                if a.name in _DRAWS[node.module]:
                    funcs[a.asname or a.name] = node.module
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or 0)):
            continue
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.attr in _DRAWS.get(modules.get(f.value.id, ""), ())
        ):
            return "draw"
        if isinstance(f, ast.Name) and f.id in funcs:
            return "draw"
    return None


def _parsed(
    path: str,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> ast.Module | None:
    """CPython's tree of ``path``: the scan's own where ``known`` has it (the editor server's
    incremental tree of the text being checked, read only), else a parse of the scan's text
    (``source``) or of the file on disk, kept per text (``state.cached_tree``)."""
    from compilelint.static.analysis.state import cached_tree

    tree = known(path) if known is not None else None
    if tree is not None:
        return tree
    data = _read(path, source)
    return cached_tree(data) if data else None


def _runs_per_call(
    project: Project,
    entry: FKey,
    target: FKey,
    cap: int = 2,
    memo: dict[FKey, int] | None = None,
) -> int:
    """How often one call of ``entry`` runs ``target``: the number of call paths to it (two
    attributes holding one class: 2), a call in a loop counting as ``cap``; at most ``cap``.
    ``memo`` (per ``target``) may be shared between entries."""
    memo = {} if memo is None else memo

    def runs(k: FKey, stack: frozenset[FKey]) -> int:
        if k == target:
            return 1
        if k in memo:
            return memo[k]
        if k in stack or len(stack) > 12:
            return 0
        n = 0
        for c, loop in _user_calls(project, k):
            got = runs(c, stack | {k})
            n += cap * got if loop else got
            if n >= cap:
                break
        memo[k] = min(n, cap)
        return memo[k]

    return runs(entry, frozenset())


def _distinct_tensor_calls(calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]]) -> int:
    """How many calls bring new tensor data (a variant's random tensors are drawn anew; repeated
    calls reuse the same tensors)."""
    n = 0
    prev: object = None
    for args, _kwargs in calls:
        ident = id(args)
        if ident != prev:
            n += 1
            prev = ident
    return n


# ---------------------------------------------------------------------------- the whole prediction
def predict(
    project: Project,
    findings: Sequence[Finding],
    spec: Any,
    catalog: Any,
    spec_dir: str = "",
    torch_version: str | None = None,
) -> Prediction:
    calls = spec_calls(spec)
    entry = find_entry(project, spec.model, spec_dir or os.path.dirname(spec.source or ""))
    notes: list[str] = []
    if entry is None:
        return Prediction(
            entry=spec.model,
            function="",
            calls=len(calls),
            graph_count=0,
            graph_breaks=0,
            recompiles=0,
            notes=(f"the spec's model {spec.model} was not found in the scanned files",),
        )
    if not spec.inputs_given:
        notes.append("inputs come from the factory: argument values are not known statically")
    if spec.compile.get("dynamic") is True:
        notes.append("compiled with dynamic=True: sizes and numbers start symbolic")
    keys = reachable(project, entry)
    sites = break_sites(project, keys, findings, catalog)
    graphs = graph_count(project, entry, sites)
    state: list[tuple[str, str, int, str]] = []
    keyset = set(keys)
    eager: list[tuple[str, int]] = []  # CL501 findings whose state is read where dynamo skips
    for f in findings:
        if f.rule != STATE_RULE:
            continue
        func, _loop = _candidate_in_loop(project, f.path, f.line, f.rule)
        m = _SELF_ATTR.search(f.message)
        if m is None or (f.path, func) not in keyset:
            continue
        if _read_eagerly(project, (f.path, func), first_read(f.path, m.group(1), f.line)):
            eager.append((f.path, f.line))
            continue
        what = "list" if "list" in f.message or "deque" in f.message else "int"
        if all(s[0] != m.group(1) for s in state):
            # the first read on any path: where torch reports the guard when the first call
            # takes every branch before the change (CL501's `guard_line` is the first read on
            # every path; where the two differ, both lines are candidates)
            line = first_read(f.path, m.group(1), f.line)
            state.append((m.group(1), what, line, func))
    if _float_state_applies(torch_version):
        for attr, line, func in float_state(project, entry, keyset):
            if all(s[0] != attr for s in state):
                state.append((attr, "float", line, func))
    if spec.compile.get("dynamic") is True:
        calls = [
            (
                [("?",) if a[0] in ("T", "I", "F") else a for a in args],
                {k: ("?",) if v[0] in ("T", "I", "F") else v for k, v in kw.items()},
            )
            for args, kw in calls
        ]
    value_breaks = number_breaks(sites)
    cfg = spec.config or {}
    limit = cfg.get("recompile_limit", cfg.get("cache_size_limit", RECOMPILE_LIMIT))
    automatic = spec.compile.get("dynamic") is not False and cfg.get(
        "automatic_dynamic_shapes", True
    )
    marked = {d["input"]: d.get("dims", []) for d in spec.dynamic}
    recs, hit = predict_recompiles(
        project,
        entry,
        calls,
        state,
        value_breaks,
        limit=int(limit) if isinstance(limit, int) else RECOMPILE_LIMIT,
        automatic=bool(automatic),
        marked=marked,
        break_sites_all=sites,
        init=(tuple(spec.init_args), dict(spec.init_kwargs)),
    )
    recs.extend(_site_recompiles(project, keyset, recs))
    if _shapes_change(calls):
        recs.extend(_size_recompiles(project, keyset, recs))
    recs.extend(_varying_size_recompiles(project, keyset, recs))
    recs.extend(_nested_frame_recompiles(project, keyset, recs))
    recs.extend(_while_resume_recompiles(project, keyset, findings, recs))
    recs.extend(
        _grown_tensor_recompiles(
            project,
            entry,
            keyset,
            sites,
            recs,
            len(calls),
            int(limit) if isinstance(limit, int) else RECOMPILE_LIMIT,
        )
    )
    if len(calls) > 1:
        recs.extend(_flag_recompiles(project, entry, keys, recs))
        recs.extend(_global_state_recompiles(project, keyset, recs))
        recs.extend(_submodule_state_recompiles(project, entry, keyset, recs, len(calls)))
        if not _shapes_change(calls):
            # a call that brings another size fails the input's tensor guard first: torch
            # reports that one (at the `def`), not the dict's (checked: a cache keyed by length)
            recs.extend(_dict_state_recompiles(project, [entry], keyset, recs))
    tails = graphless_lines(project, sites)

    def graphless(path: str, line: int) -> bool:
        return any(a <= line <= b for a, b in tails.get(path, ()))

    recs = [r for r in recs if not graphless(r.path, r.line)]
    settled = settled_sizes(project, entry, keyset, findings, calls) if spec.inputs_given else ()
    settled += tuple(eager)
    if spec.inputs_given and spec.compile.get("dynamic") is not True:
        settled += settled_numbers(project, entry, findings, calls, recs, bool(automatic))
    for f in findings:
        if f.rule not in (STATE_RULE, SIZE_RULE) or not graphless(f.path, f.line):
            continue
        m = _SELF_ATTR.search(f.message) if f.rule == STATE_RULE else None
        # module state is guarded at its first read: that read must lie in the tail too
        read = first_read(f.path, m.group(1), f.line) if m is not None else f.line
        if graphless(f.path, read) and graphless(f.path, f.guard_line or f.line):
            settled += ((f.path, f.line),)
    return Prediction(
        entry=spec.model,
        function=f"{entry[0]}:{entry[1]}",
        calls=len(calls),
        graph_count=graphs,
        graph_breaks=len(sites),
        recompiles=sum(r.count for r in recs),
        hit_recompile_limit=hit,
        break_sites=tuple(sites),
        recompile_sites=tuple(recs),
        notes=tuple(notes),
        files=tuple(sorted({k[0] for k in keys})),
        settled=settled,
    )


# torch 2.13 (checked in tests/test_pred23g.py): a float attribute of a module that traced code
# changes is guarded on its value where it is first read; the next call recompiles once and
# automatic dynamic makes it symbolic (int attributes stay static: every call recompiles).
# Earlier versions were not checked: a ``--target-torch`` below this gives no prediction.
FLOAT_STATE_SINCE = (2, 13)


def _read_eagerly(project: Project, key: FKey, read: int) -> bool:
    """Whether line ``read`` of the function ``key`` runs in a part of its frame dynamo skips
    (``CalleeBreaks.skips_from``: a graph break in one of its loops, torch 2.13, skips the
    frame from its start or from the last break before that loop; the skipped part runs
    eagerly): module state read there is guarded by no compiled entry, so its change
    recompiles nothing (dev ``speculative_accept_loop``, ``freeze_schedule_requires_grad``)."""
    if read <= 0:
        return False
    start = project.callee_breaks().skips_from(key)
    return start is not None and read > start


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

    node = _class_node(tree, cls)
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


def _module_literals(tree: ast.Module) -> dict[str, Any]:
    """The module-level names bound once at the top level of ``tree``, to a literal or a dict
    of literals with constant keys (``_STEP = 0``, ``_STATE = {"warned": False}``): by name,
    the value (a dict as a ``dict``)."""
    count: dict[str, int] = {}
    out: dict[str, Any] = {}
    for st in tree.body:
        tgts: list[ast.expr] = []
        if isinstance(st, ast.Assign):
            tgts = list(st.targets)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            tgts = [st.target]
        for t in tgts:
            if isinstance(t, ast.Name):
                count[t.id] = count.get(t.id, 0) + 1
        if not isinstance(st, ast.Assign) or len(st.targets) != 1:
            continue
        t, v = st.targets[0], st.value
        if not isinstance(t, ast.Name):
            continue
        try:
            out[t.id] = ast.literal_eval(v)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    for st in tree.body:
        # a class attribute bound in the class body (`num_calls = 0`): `Cls.num_calls`
        if isinstance(st, ast.ClassDef) and count.get(st.name) is None:
            for a in st.body:
                if (
                    isinstance(a, ast.Assign)
                    and len(a.targets) == 1
                    and isinstance(a.targets[0], ast.Name)
                ):
                    try:
                        out[f"{st.name}.{a.targets[0].id}"] = ast.literal_eval(a.value)
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        continue
                    count[f"{st.name}.{a.targets[0].id}"] = 1
    return {k: v for k, v in out.items() if count.get(k) == 1}


def _global_item(e: ast.AST, names: Mapping[str, Any]) -> tuple[str, Any] | None:
    """``(name, key)`` of ``NAME[key]`` (a constant key) of a module-level dict, else None."""
    if (
        isinstance(e, ast.Subscript)
        and isinstance(e.value, ast.Name)
        and isinstance(names.get(e.value.id), dict)
        and isinstance(e.slice, ast.Constant)
    ):
        return e.value.id, e.slice.value
    return None


def global_state(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module
) -> list[tuple[str, int, str]]:
    """``(subject, line of its first read, guard)`` for each module-level value that the
    function reads and then changes: a name it declares ``global`` and stores (``STEP += 1``,
    ``STEP = STEP + 1``, ``WARNED = True`` after ``if not WARNED:``), or an item of a
    module-level dict with a constant key (``STATE["warned"] = True`` after ``if not
    STATE["warned"]:``), or an attribute of a module-level class bound in its body
    (``Tracker.num_calls += 1``), the stored value another than the one read: a counter, or a
    literal other than the module's. dynamo guards a global's value where traced code first reads it
    (torch 2.13: ``G['_STEP'] == 0  # _STEP += 1``, ``G['_STATE']['warned'] == False``): the
    value lives across the calls, so the next call recompiles (once: automatic dynamic makes
    an int symbolic, a flag keeps its new value)."""
    names = _module_literals(tree)
    if not names:
        return []
    declared = {n for st in _own_nodes(fn) if isinstance(st, ast.Global) for n in st.names}
    reads: dict[tuple[str, Any], int] = {}
    changed: dict[tuple[str, Any], int] = {}

    def subject(e: ast.AST) -> tuple[str, Any] | None:
        if isinstance(e, ast.Name) and e.id in declared and e.id in names:
            return e.id, None
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
            k = f"{e.value.id}.{e.attr}"
            return (k, None) if k in names else None
        return _global_item(e, names)

    def initial(k: tuple[str, Any]) -> Any:
        v = names[k[0]]
        return v if k[1] is None else v.get(k[1], _MISSING)

    for n in _own_nodes(fn):
        if isinstance(n, ast.AugAssign):
            k = subject(n.target)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1:
            k = subject(n.targets[0])
            if k is None:
                continue
            v = n.value
            if any(subject(x) == k for x in ast.walk(v)):
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
                continue
            try:
                lit = ast.literal_eval(v)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if lit != initial(k) or type(lit) is not type(initial(k)):
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            k = subject(n)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            k = subject(n)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
    out: list[tuple[str, int, str]] = []
    for k, line in sorted(changed.items(), key=lambda kv: kv[1]):
        read = reads.get(k)
        if read is None or read > line:
            continue  # stored before any read: nothing guarded the old value
        owner, _, attr = k[0].partition(".")
        text = (
            f"G[{owner!r}]" + (f".{attr}" if attr else "") + ("" if k[1] is None else f"[{k[1]!r}]")
        )
        guard = (
            f"not ___dict_contains({k[1]!r}, G[{k[0]!r}])"
            if initial(k) is _MISSING
            else f"{text} == {initial(k)!r}"
        )
        out.append((k[0] if k[1] is None else f"{k[0]}[{k[1]!r}]", read, guard))
    return out


_MISSING = object()

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
            isinstance(f, ast.Attribute) and _key_of(f.value) == "math"
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
            and _key_of(n.targets[0]).startswith("self.")
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute)
            and isinstance(n.value.func.value, ast.Name)
            and n.value.func.value.id == "nn"
        ):
            out[_key_of(n.targets[0])] = n.value.func.attr
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
    for n in _own_nodes(fn):
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
            for n in _own_nodes(fn)
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
        if _installed(path) or "." not in qual:
            continue
        tree = _parsed(path)
        fn = _function_node(tree, qual) if tree is not None else None
        if fn is None or tree is None:
            continue
        held: dict[str, str] | None = None
        for chain, line in submodule_state(fn):
            owner, attr = chain.rsplit(".", 1)
            if held is None:
                held = _torch_submodules(_class_node(tree, qual.rsplit(".", 1)[0]))
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


def _global_state_recompiles(
    project: Project, keyset: set[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """Module-level values traced code reads and changes (:func:`global_state`), for a spec
    whose calls run the model more than once: one recompile each, at its first read."""
    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    for path, qual in sorted(keyset):
        if _installed(path):
            continue
        tree = _parsed(path)
        fn = _function_node(tree, qual) if tree is not None else None
        if tree is None or fn is None:
            continue
        for subj, line, guard in global_state(fn, tree):
            if (path, line) in taken or _read_eagerly(project, (path, qual), line):
                continue
            taken.add((path, line))
            out.append(
                PredictedRecompile(
                    path,
                    line,
                    qual.rsplit(".", 1)[-1],
                    subj,
                    guard,
                    1,
                    f"`{subj}` is module-level state that traced code reads and changes: torch "
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
    tree = trees.get(path) if trees is not None and path in trees else _parsed(path)
    if tree is None:
        return []
    from compilelint.static.analysis.state import first_read_line

    node = _class_node(tree, cls)
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
            data = _read(root[0], source)
            trees[root[0]] = _parsed(root[0], source, known) if init.search(data) else None
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
    for node in _own_nodes(fn):
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
        if not any(_key_of(e) == f"self.{t.attr}" for e in v.args[0].elts):
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
        tree = _parsed(path)
        node = _function_node(tree, qual) if tree is not None else None
        if tree is None or node is None:
            continue
        cls = _class_node(tree, qual.rsplit(".", 1)[0])
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


def _class_node(tree: ast.Module, qual: str) -> ast.ClassDef | None:
    body: list[ast.stmt] = tree.body
    node: ast.ClassDef | None = None
    for part in qual.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


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

    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    for fi in site_inputs(project, project.callee_breaks()):
        frame = fi.frame or fi.function
        if (fi.path, fi.function) not in keyset and not any(k[1] == frame for k in keyset):
            continue
        if (fi.path, fi.line) in taken:
            continue
        taken.add((fi.path, fi.line))
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
        out.append(
            PredictedRecompile(
                fi.path,
                fi.line,
                fi.function.rsplit(".", 1)[-1],
                fi.param,
                guard,
                1,
                reason,
                _FIX["none"],
            )
        )
    return out


def _shapes_change(calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]]) -> bool:
    """Whether some tensor input of the spec's calls comes with another shape."""
    seen: dict[object, object] = {}
    for args, kwargs in calls:
        for k, a in [*enumerate(args), *kwargs.items()]:
            if a[0] != "T":
                continue
            if k in seen and seen[k] != a[1]:
                return True
            seen.setdefault(k, a[1])
    return False


SIZE_RULE = "CL304"  # a size read as an int before a break and used after it


def settled_sizes(
    project: Project,
    entry: FKey,
    keyset: set[FKey],
    findings: Sequence[Finding],
    calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]],
) -> tuple[tuple[str, int], ...]:
    """The CL304 findings (a size read as a Python int before a break, an int input of the
    resume function) whose int the spec's calls cannot change, so that no guard on it fails:
    every call brings the tensors of the first (same shapes, and no new data that a size read
    from ``nonzero``/``unique``/a mask could follow), and the finding's function runs once per
    call of the entry (a method of a class two attributes hold runs on two layers' tensors).
    Without a spec the scan assumes sizes that change between calls (serving); with one, the
    prediction knows the calls and decides (checked on torch 2.13: one call, or calls with
    the same tensor, never recompile the resume function)."""
    if _shapes_change(calls) or _distinct_tensor_calls(calls) > 1:
        return ()
    out: list[tuple[str, int]] = []
    for f in findings:
        if f.rule != SIZE_RULE:
            continue
        # a finding of a library reached from the model is reported at the model's call; its
        # last frame is where the size is read
        at = f.frames[-1] if f.frames else None
        path, line = (at.path, at.line) if at is not None else (f.path, f.line)
        func, _loop = _candidate_in_loop(project, path, line, f.rule)
        if (path, func) not in keyset:
            continue
        if _runs_per_call(project, entry, (path, func)) >= 2:
            continue
        out.append((f.path, f.line))
    return tuple(out)


NUMBER_RULE = "CL301"  # a Python number argument a use bakes into the graph
_NUMBER_NAME = re.compile(r"^`(\w+)` is a Python number")


def settled_numbers(
    project: Project,
    entry: FKey,
    findings: Sequence[Finding],
    calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]],
    recs: Sequence[PredictedRecompile],
    automatic: bool = True,
) -> tuple[tuple[str, int], ...]:
    """The CL301 findings on a parameter of the entry whose use the spec's calls do not
    recompile, where the prediction has no recompile at the finding's line: the spec passes
    the same value in every call (a left-out argument takes its default every time: torch 2.13,
    `range(num_steps)` over three calls with `num_steps=4` compiles once), or the value changes
    but no use needs it as a constant (the guard rows hold no ``"specialize"`` row: `.view(-1,
    k)`, `repeat_interleave(k)` take a symbol), so automatic dynamic makes it symbolic after
    the one recompile the prediction reports where the value is first read. Without a spec
    CL301 stays a finding (the scan assumes values that change)."""
    fn = project.fn(entry)
    names = {p.name for p in fn.params}
    bound = [_bind(fn, args, kw) for args, kw in calls]
    specialized = {str(r[0]) for r in fn.guards if r[1] == "specialize"}
    sites = {(os.path.realpath(r.path), r.line) for r in recs}
    out: list[tuple[str, int]] = []
    for f in findings:
        if f.rule != NUMBER_RULE:
            continue
        m = _NUMBER_NAME.search(f.message)
        if m is None or m.group(1) not in names:
            continue
        func, _loop = _candidate_in_loop(project, f.path, f.line, f.rule)
        if (f.path, func) != entry or (os.path.realpath(f.path), f.line) in sites:
            continue
        vals = [b.get(m.group(1), DEFAULT) for b in bound]
        if any(v[0] == "?" for v in vals):
            continue
        if all(v == vals[0] for v in vals) or (automatic and m.group(1) not in specialized):
            out.append((f.path, f.line))
    return tuple(out)


def _size_recompiles(
    project: Project, keyset: set[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """Ints computed from a tensor's size passed to a frame of its own (a function that
    breaks, :func:`~compilelint.static.analysis.breakpoints.frame_inputs`): when the spec's
    calls change a shape, the frame (or its resume function, where the int is first read
    after the break) recompiles once on the int's guard, then the int is symbolic."""
    from compilelint.static.analysis.breakpoints import frame_inputs

    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    # a per-call int returned by a call that breaks, first used after it in the caller (the
    # resume function's `___stack0`): CL304's kept candidates with `returned`
    for path in sorted({k[0] for k in keyset}):
        for c in project.kept(project.files[path], frozenset({"CL304"})):
            if "returned" not in c.args or (path, c.func) not in keyset:
                continue
            if (path, c.line) in taken:
                continue
            taken.add((path, c.line))
            i = c.args["returned"].lstrip("@")
            out.append(
                PredictedRecompile(
                    path,
                    c.line,
                    c.func.rsplit(".", 1)[-1],
                    "___stack0",
                    f"___stack0{f'[{i}]' if i else ''} == <the value of the first call>",
                    1,
                    f"`{c.args['name']}` is returned by a call that breaks the graph; the "
                    "resume function after it holds it on its stack and guards on its value: "
                    "the call with another shape recompiles it once",
                    _FIX["size"],
                )
            )
    for fi in frame_inputs(project, project.callee_breaks()):
        frame = fi.frame or fi.function
        if not fi.sized or (fi.path, fi.line) in taken:
            continue
        if (fi.path, fi.function) not in keyset and not any(k[1] == frame for k in keyset):
            continue
        taken.add((fi.path, fi.line))
        out.append(
            PredictedRecompile(
                fi.path,
                fi.line,
                fi.function.rsplit(".", 1)[-1],
                fi.param,
                f"{fi.param} == <the value of the first call>",
                1,
                f"`{frame}` is compiled as a frame of its own (it breaks the graph), and "
                f"`{fi.caller}` passes `{fi.param}` an int computed from a tensor's size: the "
                "call with another shape recompiles it once, then the int is symbolic",
                _FIX["size"],
            )
        )
    return out


def _read(path: str, source: Callable[[str], bytes | None] | None) -> bytes:
    data = source(path) if source is not None else None
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b""
    return data


def _varying_size_recompiles(
    project: Project,
    keyset: set[FKey],
    recs: Sequence[PredictedRecompile],
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """A frame of its own (:func:`~compilelint.static.analysis.breakpoints.own_frames`: a
    function that breaks, or one a skipped frame calls) called in a loop with a tensor whose
    size differs between the iterations (:mod:`~compilelint.static.analysis.sizes`: grown by
    concatenation, selected by a mask, sliced by a number read from a tensor): the second call
    fails the frame's size guard and recompiles it once, then the dim is dynamic (torch 2.13
    reports ``tensor 'x' size mismatch`` at the ``def``). A frame dynamo skips from its start
    (a break in one of its own loops) is never compiled, so never recompiled."""
    from compilelint.static.analysis.breakpoints import own_frames
    from compilelint.static.analysis.sizes import aliased_arguments, varying_arguments

    breaks = project.callee_breaks()
    taken = {(r.path, r.line) for r in recs}
    trees: dict[str, ast.Module | None] = {}
    out: list[PredictedRecompile] = []
    for key in sorted(own_frames(project, breaks) & keyset):
        if breaks.skips_from(key) is not None:
            continue
        fn = project.fn(key)
        def_line = next((int(r[2]) for r in fn.guards if r[1] == "def"), fn.line)
        if (key[0], def_line) in taken:
            continue
        pos = [p.name for p in fn.params if p.index >= 0]
        names = {p.name for p in fn.params if p.index > -2}
        for cpath, cs, implicit in project.callers.get(key, ()):
            if not cs.in_loop or cs.star or id(cs) in project._dead_calls:
                continue
            if cpath not in trees:
                trees[cpath] = _parsed(cpath, source, known)
            tree = trees[cpath]
            if tree is None:
                continue
            name = cs.ref.rsplit("|", 1)[-1].rsplit(".", 1)[-1]
            got: list[int | str] = list(varying_arguments(tree, cs.line, cs.col, name) or [])
            alias = [] if got else aliased_arguments(tree, cs.line, cs.col, name)
            got = got or list(alias)
            bound = [
                pos[implicit + a] if isinstance(a, int) and implicit + a < len(pos) else a
                for a in got
            ]
            params = [p for p in bound if isinstance(p, str) and p in names]
            if not params:
                continue
            taken.add((key[0], def_line))
            out.append(
                PredictedRecompile(
                    key[0],
                    def_line,
                    key[1].rsplit(".", 1)[-1],
                    params[0],
                    f"`{params[0]}` and `{params[-1]}` are one object"
                    if alias
                    else f"tensor '{params[0]}' size mismatch",
                    1,
                    (
                        f"`{key[1]}` is compiled as a frame of its own, and the loop at line "
                        f"{cs.line} passes `{params[0]}` and `{params[-1]}` one tensor on its "
                        "first iteration and two on the next: the second call recompiles it once"
                    )
                    if alias
                    else (
                        f"`{key[1]}` is compiled as a frame of its own, and the loop at line "
                        f"{cs.line} passes `{params[0]}` a tensor whose size changes between its "
                        "iterations: the second call recompiles it once, then the dim is dynamic"
                    ),
                    _FIX["tensor"],
                )
            )
            break
    return out


# the breaks torch 2.13 compiles as a jump it cannot trace (GB0170, "data-dependent branching"):
# the resume functions start at the jump's targets
_JUMP_BREAKS = frozenset({"CL101", "CL104"})


def _while_resume_recompiles(
    project: Project,
    keyset: set[FKey],
    findings: Sequence[Finding],
    recs: Sequence[PredictedRecompile],
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """A ``while`` whose test breaks on a tensor's value (:data:`_JUMP_BREAKS`) re-enters the
    resume function of its body on every iteration (the next test is the same jump); the
    Python numbers the body carries from one iteration to the next
    (:func:`~compilelint.static.analysis.carried.carried_numbers`) come with new values on the
    second entry: one recompile, guarded where the body first reads one of them, then they are
    symbolic (torch 2.13). Not for a loop inside another loop of its function, nor in a frame
    dynamo skips (a break in one of its loops, or a call in one whose callee breaks). A test
    whose tensor part only some inputs reach (``while i < t.size(0) and t[i] > 0:``, a
    "latent" break) counts: the counter starts where the size test holds."""
    from compilelint.static.analysis.carried import (
        carried_numbers,
        enclosing_loops,
        first_read,
    )

    taken = {(r.path, r.line) for r in recs}
    breaks = None
    out: list[PredictedRecompile] = []
    sites: list[BreakSite] = []
    for f in findings:
        if f.rule in _JUMP_BREAKS and f.stage != "dynamic" and f.behind is None:
            func, in_loop = _candidate_in_loop(project, f.path, f.line, f.rule)
            if not in_loop and (f.path, func) in keyset:
                sites.append(BreakSite(f.path, f.line, f.rule, func, in_loop))
    for b in sites:
        key = (b.path, b.function)
        tree = _parsed(b.path, source, known)
        fn = _function_node(tree, b.function) if tree is not None else None
        if fn is None:
            continue
        loop = next(
            (n for n in _own_nodes(fn) if isinstance(n, ast.While) and n.lineno == b.line), None
        )
        if loop is None or enclosing_loops(fn, loop):
            continue
        if breaks is None:
            breaks = project.callee_breaks()
        if breaks.skips_from(key) is not None:
            continue
        hit = first_read(loop, carried_numbers(fn, loop), fn)
        if hit is None or (b.path, hit[0]) in taken:
            continue
        line, name = hit
        taken.add((b.path, line))
        out.append(
            PredictedRecompile(
                b.path,
                line,
                b.function.rsplit(".", 1)[-1],
                name,
                f"{name} == <its value on the first iteration>",
                1,
                f"the `while` test at line {b.line} branches on a tensor's value: the graph "
                "breaks there on every iteration and re-enters the resume function of the "
                f"loop's body, whose Python number `{name}` changes between the iterations: "
                "it recompiles once, then the number is symbolic",
                _FIX["loop"],
            )
        )
    return out


# list, set and dict comprehensions are frames of their own before Python 3.12 (PEP 709 inlines
# them); generator expressions are frames in every version, but not modelled here (unchecked)
_COMP_FRAMES: tuple[type[ast.AST], ...] = (
    (ast.ListComp, ast.SetComp, ast.DictComp) if sys.version_info < (3, 12) else ()
)


def _int_target(loop: ast.For) -> str | None:
    """The name a ``for`` binds to a Python int that differs on every iteration: ``i`` of
    ``for i in range(...)`` and of ``for i, x in enumerate(...)``."""
    it, t = loop.iter, loop.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)):
        return None
    if it.func.id == "range" and isinstance(t, ast.Name):
        return t.id
    if (
        it.func.id == "enumerate"
        and isinstance(t, ast.Tuple)
        and t.elts
        and isinstance(t.elts[0], ast.Name)
    ):
        return t.elts[0].id
    return None


def _index_uses(node: ast.AST, name: str) -> list[int]:
    """Lines where ``name`` is read inside a subscript's index in ``node`` (``t[i]``,
    ``x[i, :, j : j + 6]``): a Python int traced code specialises on (``i == 0``)."""
    out: list[int] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript):
            out.extend(
                n.lineno
                for n in ast.walk(sub.slice)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            )
    return out


def _varying_names(loop: ast.For, target: str) -> set[str]:
    """The names that differ between the iterations of ``loop``: its int ``target`` and the
    names its body assigns from an expression reading one of them (``k = int(n[i])``)."""
    out = {target}
    for st in _own_nodes(loop):
        if isinstance(st, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id in out for n in ast.walk(st.value)
        ):
            out.update(n.id for t in st.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


def _frame_reads(comp: ast.expr, names: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` of the reads of ``names`` that reach a comprehension's own frame, when
    the frame does work dynamo traces (an index or a call): inside it (a name the comprehension
    binds itself is not read from outside), and in its first iterable, which the enclosing
    frame evaluates and passes as the frame's argument (a ``range`` iterator is guarded on its
    bounds, ``___normalize_range_iter(.0) == (0, 2, 1)``, at the comprehension's line)."""
    gens: list[ast.comprehension] = getattr(comp, "generators", [])
    if not gens:
        return []
    bound = {n.id for g in gens for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    parts: list[ast.AST] = [
        *(getattr(comp, f) for f in ("elt", "key", "value") if hasattr(comp, f)),
        *(c for g in gens for c in g.ifs),
        *(g.iter for g in gens[1:]),
    ]
    if not any(isinstance(n, (ast.Subscript, ast.Call)) for p in parts for n in ast.walk(p)):
        return []
    inside = [
        (n.lineno, n.id)
        for p in parts
        for n in ast.walk(p)
        if isinstance(n, ast.Name)
        and isinstance(n.ctx, ast.Load)
        and n.id in names
        and n.id not in bound
    ]
    first = [
        (comp.lineno, n.id)
        for n in ast.walk(gens[0].iter)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
    ]
    return inside + first


# builtins whose result only carries its arguments' values: `enumerate(lengths)` in a `for`
# binds the elements lazily, and the guard on `lengths[0]` is installed where the loop's body
# first needs an element (torch 2.13: `mask[i, :n] = True`, not the `for` line)
_MOVING_CALLS = frozenset({"tuple", "list", "enumerate", "zip"})


def _moved_into(node: ast.expr, parents: Mapping[int, ast.AST]) -> list[str] | None:
    """Where a read of a value only moves it, the names it is moved into (``[]``: none, e.g.
    an element of a tuple that is passed on); None where the read needs the value. Moving: a
    plain assignment's value (``k = size``), an element of a tuple, list or set display or of
    ``tuple(...)``/``list(...)``/``enumerate(...)``/``zip(...)`` (``strides = [s, s]``), the iterable of a comprehension or of
    ``for`` (its target is bound to the elements) and a comprehension's element. dynamo keeps
    such a value lazy (an unrealised variable tracker) and installs its guard at the first use
    that needs it: an operation, a comparison, an argument of a call (checked on torch 2.13:
    ``k = size`` then ``F.avg_pool2d(x, k)``, ``n = steps`` then ``1.0 / n``, ``[s, s]`` as a
    ``stride``, ``tuple(d for d in dilation)``: each guard names the later line)."""
    cur: ast.AST = node
    while True:
        par = parents.get(id(cur))
        if isinstance(par, (ast.Tuple, ast.List, ast.Set, ast.Starred)):
            cur = par
            continue
        if isinstance(par, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) and par.elt is cur:
            cur = par
            continue
        if (
            isinstance(par, ast.Call)
            and isinstance(par.func, ast.Name)
            and par.func.id in _MOVING_CALLS
            and cur in par.args
        ):
            cur = par
            continue
        if isinstance(par, ast.comprehension) and par.iter is cur:
            return [n.id for n in ast.walk(par.target) if isinstance(n, ast.Name)]
        if isinstance(par, ast.For) and par.iter is cur:
            return [n.id for n in ast.walk(par.target) if isinstance(n, ast.Name)]
        if isinstance(par, ast.Assign) and par.value is cur:
            return [n.id for t in par.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        return None if cur is node else []


def guarding_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int | None:
    """The line of the first read of ``name`` (or of a name it was moved into) that needs its
    value, where dynamo installs the guard on it (:func:`_moved_into`); None when none does."""
    parents: dict[int, ast.AST] = {id(c): fn for c in ast.iter_child_nodes(fn)}
    loads: list[ast.Name] = []
    for n in _own_nodes(fn):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.append(n)
    names = {name}
    for n in sorted(loads, key=lambda e: (e.lineno, e.col_offset)):
        if n.id not in names:
            continue
        moved = _moved_into(n, parents)
        if moved is None:
            return n.lineno
        names.update(moved)
    return None


def _guarding_read_line(path: str, qual: str, name: str, line: int) -> int:
    """:func:`guarding_read` of ``name`` in the function ``qual`` of ``path``, else ``line``."""
    tree = _parsed(path)
    fn = _function_node(tree, qual) if tree is not None else None
    got = guarding_read(fn, name) if fn is not None else None
    return got if got is not None and got >= line else line


def _own_nodes(fn: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function's own frame (not those of nested ``def``s and lambdas)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))


def _function_node(tree: ast.Module, qual: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` of a qualified name (``Cls.method``, ``outer.inner``) in a module's tree."""
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in qual.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        body = node.body  # type: ignore[attr-defined]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _nested_frame_recompiles(
    project: Project,
    keyset: set[FKey],
    recs: Sequence[PredictedRecompile],
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """Code objects nested in a traced function that dynamo compiles as frames of their own,
    run several times in one call with a Python int that differs between the runs and indexes
    a tensor: the first run compiles the frame guarded on the int (``i == 0``), the second
    recompiles it once, then the int is symbolic (torch 2.13, at the line reading it):

    - the ``key=`` lambda of a ``sorted``/``min``/``max`` over ``range(...)`` that breaks
      (CL114: the builtin runs eagerly and calls the lambda once per index);
    - a list, set or dict comprehension (a frame before Python 3.12) in a ``for i in range``
      loop of a frame dynamo skips (a break in one of its loops), reading ``i`` in an index:
      each iteration runs the comprehension's frame with another ``i``."""

    breaks = project.callee_breaks()
    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []

    def add(path: str, line: int, func: str, name: str, why: str) -> None:
        if (path, line) in taken:
            return
        taken.add((path, line))
        out.append(
            PredictedRecompile(
                path,
                line,
                func,
                name,
                f"{name} == 0",
                1,
                why + f": the second run recompiles it once (`{name} == 0`), then `{name}` is "
                "symbolic",
                _FIX["number"],
            )
        )

    trees: dict[str, ast.Module | None] = {}
    sort_calls: dict[str, list[Candidate]] = {}
    loop_funcs: dict[str, set[str]] = {}
    for key in sorted(keyset):
        path, qual = key
        f = project.files.get(path)
        if f is None or qual not in f.functions:
            continue
        if path not in sort_calls:
            sort_calls[path] = project.kept(f, frozenset({"CL114"}))
        sorts = [c for c in sort_calls[path] if c.func == qual]
        if path not in loop_funcs:
            loop_funcs[path] = {c.func for c in f.candidates if c.in_loop}
        skipped = None
        if _COMP_FRAMES and (
            qual in loop_funcs[path] or any(c.in_loop for c in f.functions[qual].calls)
        ):
            skipped = breaks.skips_from(key)  # a break in a loop, or a call in one
        if not sorts and skipped is None:
            continue
        if path not in trees:
            trees[path] = _parsed(path, source, known)
        tree = trees[path]
        if tree is None:
            continue
        fn = _function_node(tree, qual)
        if fn is None:
            continue
        short = qual.rsplit(".", 1)[-1]
        for c in sorts:
            for call in _own_nodes(fn):
                if not (isinstance(call, ast.Call) and call.lineno == c.line):
                    continue
                key_fn = next((k.value for k in call.keywords if k.arg == "key"), None)
                items = call.args[0] if len(call.args) == 1 else None
                if not (
                    isinstance(key_fn, ast.Lambda)
                    and len(key_fn.args.args) == 1
                    and isinstance(items, ast.Call)
                    and isinstance(items.func, ast.Name)
                    and items.func.id == "range"
                ):
                    continue
                name = key_fn.args.args[0].arg
                lines = _index_uses(key_fn.body, name)
                if lines:
                    add(
                        path,
                        min(lines),
                        "<lambda>",
                        name,
                        f"the `key=` lambda at line {key_fn.lineno} is compiled as a frame of its "
                        f"own and called once per index `{name}` (the ordering breaks, CL114)",
                    )
        if skipped is None:
            continue
        for loop in _own_nodes(fn):
            if not isinstance(loop, ast.For) or loop.lineno < skipped:
                continue
            target = _int_target(loop)
            if target is None:
                continue
            comps = [
                c
                for c in _own_nodes(loop)
                if isinstance(c, ast.expr) and isinstance(c, _COMP_FRAMES)
            ]
            if not comps:
                continue
            varying = _varying_names(loop, target)
            for comp in comps:
                uses = _frame_reads(comp, varying)
                if uses:
                    line, name = min(uses)
                    add(
                        path,
                        line,
                        short,
                        name,
                        f"`{short}` runs eagerly (dynamo skips it at a break in a loop) and the "
                        f"comprehension at line {comp.lineno} is compiled as a frame of its own, "
                        f"run on every iteration of the loop at line {loop.lineno} with another "
                        f"`{name}`",
                    )
    return out


def _held_by(project: Project, entry: FKey, path: str, cls: str) -> str | None:
    """How the entry reaches an object of class ``cls`` that lives across calls: ``self`` (the
    entry's own class), ``self.<attr>`` (an attribute the entry's class sets to an instance in
    its methods), else None (an object built during the call starts fresh each time)."""
    ecls = project.fn(entry).cls
    if ecls == cls and entry[0] == path:
        return "self"
    cf = project.files[entry[0]].classes.get(ecls or "")
    if cf is None:
        return None
    for attr, refs in cf.attr_classes.items():
        for ref in refs:
            r = project.resolve(entry[0], ref.lstrip("*"))
            if r is not None and (r[0], r[1]) == (path, cls):
                return f"self.{attr}"
    return None


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
        for r in fn.guards:
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


def spec_free_recompiles(
    project: Project,
    torch_version: str | None = None,
    source: Callable[[str], bytes | None] | None = None,
    findings: Sequence[Finding] = (),
    catalog: Any = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """The recompiles the static stage predicts without an input spec: those whose evidence is
    all in the source, over everything torch.compile traces from the project's roots (module
    forwards and compiled functions, :attr:`Project.traced`). A frame of its own called in a
    loop with a tensor whose size changes between the iterations, or with one tensor twice on
    the first iteration (:func:`_varying_size_recompiles`), and a float attribute of a root's
    class that traced code changes from its own value (:func:`float_state`: one recompile,
    then symbolic; torch 2.13). Int counters and lists are CL501's own findings, at the line
    of their guard. What depends on the values a caller passes (numbers, strings, sizes that
    differ between calls) needs the spec. Since pred23i also: nested frames run with another
    int (:func:`_nested_frame_recompiles`), and a number a break hands the resume function that
    differs between its runs (:func:`_number_recompiles`): a ``random`` draw (between calls), a
    number read from a tensor in a function that runs twice per call (two call sites). Since
    pred23k also: a ``while`` test on a tensor re-entering its body's resume function with the
    numbers the body carries (:func:`_while_resume_recompiles`). An empty dict of the module
    that traced code fills (:func:`dict_state`) is predicted with a spec only: a metrics dict
    or a cache filled on every call recompiles once, on the second call, which the rules'
    fixed examples (a cache keyed by a size, a stats dict) would all report without one."""
    keyset = set(project.traced)
    out = _varying_size_recompiles(project, keyset, [], source, known)
    out.extend(_nested_frame_recompiles(project, keyset, out, source, known))
    if findings and catalog is not None:
        all_sites = break_sites(project, keyset, findings, catalog, source)
        out.extend(_while_resume_recompiles(project, keyset, findings, out, source, known))
        numbers = number_breaks(all_sites, source, known)
        if numbers:
            taken = {(r.path, r.line) for r in out}
            got = _number_recompiles(
                project, sorted(project.roots), numbers, 2, 1, source, known, all_sites
            )
            out.extend(r for r in got if (r.path, r.line) not in taken)
    if _float_state_applies(torch_version):
        out.extend(
            _state_recompiles(
                project,
                [r for r in sorted(project.roots) if r[1].endswith(".forward")],
                keyset,
                {(r.path, r.line) for r in out},
                float_state,
                _FLOAT_INIT,
                "self.{attr} == <its first value>",
                "`self.{attr}` is a float attribute changed in traced code; torch guards on its "
                "value at its first read, recompiles once, then keeps it symbolic",
                source,
                known,
            )
        )
    return out


PREDICTED_RECOMPILE = "CL303"
_RECOMPILE_RULES = ("CL301", "CL302", "CL304", "CL501", "CL502", PREDICTED_RECOMPILE)


def spec_decided(
    pred: Prediction, findings: Sequence[Finding], cwd: str | None = None
) -> list[Finding]:
    """``findings`` less the scan's own ``CL303`` findings (the recompiles it predicts without a
    spec, "between its calls") in the files the spec's entry reaches at lines the prediction
    has no recompile for: with a spec the prediction knows the calls (one call draws one
    number, runs a frame once), so it decides; elsewhere they stay. Likewise the ``CL304``
    findings whose int the spec's calls cannot change (:func:`settled_sizes`)."""
    base = cwd or os.getcwd()

    def key(path: str, line: int) -> tuple[str, int]:
        return os.path.realpath(os.path.join(base, path)), line

    files = {key(p, 0)[0] for p in pred.files}
    sites = {key(r.path, r.line) for r in pred.recompile_sites}
    settled = {key(p, line) for p, line in pred.settled}
    return [
        f
        for f in findings
        if (
            f.rule != PREDICTED_RECOMPILE
            or key(f.path, f.line)[0] not in files
            or key(f.path, f.line) in sites
        )
        and not (
            f.rule in (SIZE_RULE, STATE_RULE, NUMBER_RULE)
            and key(f.path, f.line) in settled - sites
        )
    ]


def recompile_findings(
    pred: Prediction | Sequence[PredictedRecompile],
    findings: Sequence[Finding],
    rule: Any,
    *,
    cwd: str | None = None,
    over: str = " over the spec's calls",
    source: Callable[[str], bytes | None] | None = None,
) -> list[Finding]:
    """The predicted recompiles as ``CL303`` findings (``rule``: its catalogue entry), at the
    line that installs the guard; none where a recompiles rule already reports that line, or a
    ``# noqa`` there suppresses it. Pure: reads the files' text only: the scan's (``source``,
    by the site's path: the editor's buffer), else the file on disk."""
    from compilelint.suppress import is_suppressed, parse_suppressions

    base = cwd or os.getcwd()

    def key(path: str, line: int) -> tuple[str, int]:
        return os.path.realpath(os.path.join(base, path)), line

    # one guard per changing value: a CL501 finding at a change names the line of its guard
    taken = {
        key(f.path, line)
        for f in findings
        if f.rule in _RECOMPILE_RULES
        for line in {f.line, f.guard_line or f.line}
    }
    out: list[Finding] = []
    texts: dict[str, list[str]] = {}
    noqa: dict[str, dict[int, list[str]]] = {}
    sites = pred.recompile_sites if isinstance(pred, Prediction) else pred
    for site in sites:
        k = key(site.path, site.line)
        if k in taken:
            continue
        taken.add(k)
        if k[0] not in texts:
            data = source(site.path) if source is not None else None
            if data is not None:
                texts[k[0]] = data.decode("utf-8", errors="replace").splitlines()
            else:
                try:
                    with open(k[0], encoding="utf-8", errors="replace") as fh:
                        texts[k[0]] = fh.read().splitlines()
                except OSError:
                    texts[k[0]] = []
            noqa[k[0]] = parse_suppressions("\n".join(texts[k[0]]))
        lines = texts[k[0]]
        text = lines[site.line - 1] if 0 < site.line <= len(lines) else ""
        if is_suppressed(noqa[k[0]], rule.code, site.line, site.line):
            continue
        col = len(text) - len(text.lstrip()) + 1
        out.append(
            Finding(
                rule=rule.code,
                name=rule.name,
                path=site.path,
                line=site.line,
                col=col,
                end_line=site.line,
                end_col=len(text.rstrip()) + 1,
                severity=rule.severity,
                message=rule.message.format(
                    function=site.function,
                    count=site.count,
                    guard=site.guard,
                    reason=site.reason,
                    over=over,
                ),
                fix=site.fix,
                function=site.function,
                line_text=text.strip(),
                count=site.count,
            )
        )
    return out
