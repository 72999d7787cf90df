"""Recompiles of loops: a ``while`` whose body breaks re-enters its resume function with a new
counter (:func:`_while_resume_recompiles`), and a nested frame (a comprehension, a ``def`` in
a loop) that reads the loop's int (:func:`_nested_frame_recompiles`); :func:`guarding_read`
is the read of a parameter dynamo guards on.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Mapping, Sequence

from compilelint.model import Finding
from compilelint.static.analysis.bindings import comprehension_reads
from compilelint.static.analysis.facts import Candidate
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import function_node, own_nodes, parsed_tree
from compilelint.static.predict.prediction import BreakSite, FKey, PredictedRecompile
from compilelint.static.predict.reach import _candidate_in_loop
from compilelint.static.predict.recompiles.fixes import _FIX
from compilelint.static.predict.recompiles.sites import Added

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
        tree = parsed_tree(b.path, source, known)
        fn = function_node(tree, b.function) if tree is not None else None
        if fn is None:
            continue
        loop = next(
            (n for n in own_nodes(fn) if isinstance(n, ast.While) and n.lineno == b.line), None
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
    for st in own_nodes(loop):
        if isinstance(st, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id in out for n in ast.walk(st.value)
        ):
            out.update(n.id for t in st.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


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
    for n in own_nodes(fn):
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
    tree = parsed_tree(path)
    fn = function_node(tree, qual) if tree is not None else None
    got = guarding_read(fn, name) if fn is not None else None
    return got if got is not None and got >= line else line


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
    added = Added(recs, source, known)

    def add(path: str, line: int, func: str, name: str, why: str) -> None:
        added.add(
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
        tree = added.tree(path)
        if tree is None:
            continue
        fn = function_node(tree, qual)
        if fn is None:
            continue
        short = qual.rsplit(".", 1)[-1]
        for c in sorts:
            for call in own_nodes(fn):
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
        for loop in own_nodes(fn):
            if not isinstance(loop, ast.For) or loop.lineno < skipped:
                continue
            target = _int_target(loop)
            if target is None:
                continue
            comps = [
                c
                for c in own_nodes(loop)
                if isinstance(c, ast.expr) and isinstance(c, _COMP_FRAMES)
            ]
            if not comps:
                continue
            varying = _varying_names(loop, target)
            for comp in comps:
                uses = comprehension_reads(comp, varying)
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
    return added.out
