"""Recompiles of Python numbers a graph break hands to the resume function (``.item()``,
``int(t)``: CL102/CL103, and draws dynamo does not trace, CL205): new data recompiles the
resume once (:func:`_number_recompiles`), at the line that guards the number
(:func:`number_guard_lines`); ``CL301`` numbers the spec's calls cannot change
(:func:`settled_numbers`). Reads the statements through :mod:`~compilelint.static.analysis.bindings`.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable, Sequence

from compilelint.model import Finding
from compilelint.static.analysis.bindings import bound_keys, key_of, reads_any, stored_numbers
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import function_node, parsed_tree, statement_at, surely_runs
from compilelint.static.predict.graphs import _breaking_loop_calls
from compilelint.static.predict.prediction import (
    DEFAULT,
    VALUE_BREAKS,
    Abstract,
    BreakSite,
    FKey,
    PredictedRecompile,
    _bind,
)
from compilelint.static.predict.reach import _candidate_in_loop, _runs_per_call
from compilelint.static.predict.recompiles.fixes import _FIX


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
    tree = parsed_tree(b.path, source, known)
    fn = function_node(tree, b.function) if tree is not None else None
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
        if not drawn and not reads_any(st, tainted):
            continue
        tainted |= bound_keys(st)
        for d in drawn:  # an in-place draw (`t.bernoulli_(p)`) changes its receiver
            if isinstance(d.func, ast.Attribute) and d.func.attr.endswith("_"):
                key = key_of(d.func.value)
                if key:
                    tainted.add(key)
    if not tainted:
        return False
    # the statement that reads the number must read a drawn value (or draw itself)
    here = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno == b.line]
    return any(draws(st) or reads_any(st, tainted) for st in here)


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
        if at > line and surely_runs(path, at, source, known)
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


def _number_name(
    path: str,
    line: int,
    draw: bool = False,
    source: Callable[[str], bytes | None] | None = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> str | None:
    """The name the statement at ``line`` stores the number in (``n = x.item()``), if one."""
    _holder, stmt = statement_at(path, line, source, known)
    names = sorted(stored_numbers(stmt, draw)) if stmt is not None else []
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
    holder, stmt = statement_at(path, line, source, known)
    if holder is None or stmt is None:
        return line + 1
    names = stored_numbers(stmt, draw)
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
    tree = parsed_tree(path, source, known)
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
