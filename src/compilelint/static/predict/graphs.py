"""The graphs of the spec's first call (:func:`graph_count`): the entry frame's graph, one more
per break on its path, a frame a loop break sends to eager replaced by its callees' frames, and
a break whose resume has nothing to trace making no graph (:func:`graphless_tail`).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import function_node, parsed_tree
from compilelint.static.predict.prediction import BreakSite, FKey
from compilelint.static.predict.reach import _user_calls


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
        t = project.call_target(k[0], c.ref)
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
    tree = parsed_tree(k[0])
    fn = function_node(tree, k[1]) if tree is not None else None
    if fn is None or not fn.body or not isinstance(fn.body[-1], ast.Return):
        return False
    call = fn.body[-1].value
    if not isinstance(call, ast.Call):
        return False
    wanted = set(breaking)
    sites = [
        c
        for c in project.fn(k).calls
        if c.line and (t := project.call_target(k[0], c.ref)) is not None and t[0] in wanted
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
        tree = parsed_tree(path)
        fn = function_node(tree, qual) if tree is not None else None
        got = graphless_tail(fn, line) if fn is not None else None
        if got is not None:
            out.setdefault(path, []).append(got)
    return out
