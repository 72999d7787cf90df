"""Recompiles from size guards: an int read from a tensor's size before a break and used after it
(``CL304``, :func:`settled_sizes`, :func:`_size_recompiles`), and a frame called in a loop
with a tensor whose size changes between iterations (:func:`_varying_size_recompiles`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from compilelint.model import Finding
from compilelint.static.analysis.project import Project
from compilelint.static.predict.prediction import (
    Abstract,
    FKey,
    PredictedRecompile,
    _distinct_tensor_calls,
)
from compilelint.static.predict.reach import _candidate_in_loop, _runs_per_call
from compilelint.static.predict.recompiles.fixes import _FIX
from compilelint.static.predict.recompiles.sites import Added, frame_input_recompile, traced_frame


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


def _size_recompiles(
    project: Project, keyset: set[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """Ints computed from a tensor's size passed to a frame of its own (a function that
    breaks, :func:`~compilelint.static.analysis.breakpoints.frame_inputs`): when the spec's
    calls change a shape, the frame (or its resume function, where the int is first read
    after the break) recompiles once on the int's guard, then the int is symbolic."""
    from compilelint.static.analysis.breakpoints import frame_inputs

    added = Added(recs)
    # a per-call int returned by a call that breaks, first used after it in the caller (the
    # resume function's `___stack0`): CL304's kept candidates with `returned`
    for path in sorted({k[0] for k in keyset}):
        for c in project.kept(project.files[path], frozenset({"CL304"})):
            if "returned" not in c.args or (path, c.func) not in keyset:
                continue
            i = c.args["returned"].lstrip("@")
            added.add(
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
        if not fi.sized or not traced_frame(fi, keyset):
            continue
        added.add(
            frame_input_recompile(
                fi,
                f"{fi.param} == <the value of the first call>",
                f"`{fi.frame or fi.function}` is compiled as a frame of its own (it breaks the "
                f"graph), and `{fi.caller}` passes `{fi.param}` an int computed from a tensor's "
                "size: the call with another shape recompiles it once, then the int is symbolic",
                _FIX["size"],
            )
        )
    return added.out


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
    added = Added(recs, source, known)
    for key in sorted(own_frames(project, breaks) & keyset):
        if breaks.skips_from(key) is not None:
            continue
        fn = project.fn(key)
        def_line = next((int(r[2]) for r in fn.guards if r[1] == "def"), fn.line)
        if added.taken(key[0], def_line):
            continue
        pos = [p.name for p in fn.params if p.index >= 0]
        names = {p.name for p in fn.params if p.index > -2}
        for cpath, cs, implicit in project.callers.get(key, ()):
            if not cs.in_loop or cs.star or project.site_refuted(cs):
                continue
            tree = added.tree(cpath)
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
            added.add(
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
    return added.out
