"""Phase 2: which scanned functions break the graph when traced code calls them.

A call of a function dynamo cannot trace to its end breaks the *caller* at the call: dynamo
compiles the caller up to the call, runs the call, and resumes in a new function after it. A
check that needs "this call breaks" (CL304: a size live across the break) cannot know it in
phase 1, where only the function's own body is seen; it records the call's refs in
``Candidate.args["via"]`` and :meth:`CalleeBreaks.keep` decides here, from the kept break
candidates of the callee (and, transitively, of what it calls).

Only kept candidates count (reachability, tensor inference and parameter conditions already
applied), and not those marked latent (a break only some inputs reach) or found under
``if self.training:`` (a break only training mode runs).
"""

from __future__ import annotations

import os
import re
import weakref
from dataclasses import dataclass
from functools import cache
from typing import Any

from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import (
    AT_CALL,
    BRANCH,
    GENERATOR_ARG,
    HELD_OBJECT,
    REBUILD_CODES,
    CallSite,
    Candidate,
    FunctionFacts,
)
from compilelint.static.analysis.project import FKey, Project

_MAX_DEPTH = 4  # call depth searched for a break below the called function
RECOMPILE_LIMIT_GB = "Dynamo recompile limit exceeded"
FRAME_INPUT = "CL304"  # the rule whose phase-2 findings :func:`frame_inputs` gives
# ``Candidate.args`` key of a finding whose values come from a call in another file: "path\t
# line\tfunction" of that call (the engine gives it to the finding as its first frame)
CONTEXT = "context"
WHY_INT = (
    "dynamo specialises a Python int input of a frame on its first value, so {when} recompiles "
    "it (guard `{name} == <first value>`) before the int becomes symbolic"
)


def _conditional(c: Candidate) -> bool:
    """A break only some inputs reach (marked latent) or only training mode runs."""
    return bool(c.args.get("latent") or c.args.get("training"))


def is_break_rule(rule: Any) -> bool:
    """A catalogue rule that predicts a graph break (not a recompile)."""
    gbs = [g for g in getattr(rule, "gb_types", ()) if g != RECOMPILE_LIMIT_GB]
    return bool(gbs) and getattr(rule, "category", "") != "recompiles"


@cache
def break_codes() -> frozenset[str]:
    """Codes of the catalogue's break rules."""
    from compilelint.catalog import load_catalog

    return frozenset(c for c, r in load_catalog().rules.items() if is_break_rule(r))


class CalleeBreaks:
    """Memoised "does a call of this function break the caller" over one project view."""

    def __init__(self, project: Project, break_codes: frozenset[str]) -> None:
        # the project holds this memo: a weak reference back, so that the two are no
        # reference cycle (freed as soon as the project is, not by the cyclic collector)
        self.project: Project = weakref.proxy(project)
        self.codes = break_codes
        self._direct: dict[str, set[str]] = {}  # path -> quals with a kept break candidate
        self._lines: dict[str, dict[str, list[tuple[int, bool]]]] = {}  # path -> qual -> breaks
        self._memo: dict[FKey, bool] = {}
        self._sure: dict[str, set[str]] = {}  # path -> quals with a kept break outside branches
        self._sure_memo: dict[FKey, bool] = {}

    def _broken_in(self, path: str) -> set[str]:
        got = self._direct.get(path)
        if got is None:
            f = self.project.files[path]
            # CL116 (a call of a breaking method) is itself decided here: the call's own
            # target, which `breaks` follows, says it
            codes = self.codes - REBUILD_CODES
            got = {c.func for c in self.project.kept(f, codes) if not _conditional(c)}
            self._direct[path] = got
        return got

    def skips_from(self, key: FKey) -> int | None:
        """Where dynamo gives up on ``key``'s frame (torch 2.13: a graph break in a ``for``
        loop skips the frame being compiled; it runs eagerly and the functions it calls are
        compiled as frames of their own): None when it does not (no kept break in one of its
        loops, no call in a loop of a function that breaks); else the line from which its
        calls run as frames of their own: the last break outside loops before the first one in
        a loop (the code up to it was compiled as a graph, the resume function is what is
        skipped), 0 when there is none."""
        self._broken_in(key[0])
        p = self.project
        f = p.files[key[0]]
        rows = self._lines.get(key[0])
        if rows is None:
            rows = {}
            for c in p.kept(f, self.codes - REBUILD_CODES):
                if not _conditional(c):
                    rows.setdefault(c.func, []).append((c.line, c.in_loop))
            self._lines[key[0]] = rows
        marks = list(rows.get(key[1], ()))
        for site in p.fn(key).calls:
            t = p._target(key[0], site.ref)
            if t is None or t[0] == key or p.opaque_to_dynamo(t[0]):
                continue
            if p.fn(t[0]).name != "__init__" and self.breaks(t[0]):
                marks.append((site.line, site.in_loop))
        loops = [ln for ln, loop in marks if loop]
        if not loops:
            return None
        first = min(loops)
        return max((ln for ln, loop in marks if not loop and ln < first), default=0)

    def breaks(self, key: FKey, depth: int = 0, stack: frozenset[FKey] = frozenset()) -> bool:
        if key in self._memo:
            return self._memo[key]
        if depth > _MAX_DEPTH or key in stack:
            return False
        p = self.project
        got = key[1] in self._broken_in(key[0])
        if not got:
            fn = p.fn(key)
            for c in fn.calls:
                t = p._target(key[0], c.ref)
                if t is None or t[0] == key or p.opaque_to_dynamo(t[0]):
                    continue
                if self.breaks(t[0], depth + 1, stack | {key}):
                    got = True
                    break
        self._memo[key] = got
        return got

    def surely(self, key: FKey, depth: int = 0, stack: frozenset[FKey] = frozenset()) -> bool:
        """Every call of ``key`` breaks: a kept break, or a call of a function that surely
        breaks, outside branches (or in one whose test is conditions on parameters that are
        :meth:`Project.certain` here). :meth:`breaks` also counts breaks only some inputs take:
        an image path under ``if pixel_values is not None:``."""
        if key in self._sure_memo:
            return self._sure_memo[key]
        if depth > _MAX_DEPTH or key in stack:
            return False
        p = self.project
        direct = self._sure.get(key[0])
        if direct is None:
            f = p.files[key[0]]
            codes = self.codes - REBUILD_CODES
            direct = {
                c.func
                for c in p.kept(f, codes)
                if not _conditional(c)
                and not c.args.get(BRANCH)
                and (not c.conds or p.certain((key[0], c.func), c.conds))
            }
            self._sure[key[0]] = direct
        got = key[1] in direct
        if not got:
            for c in p.fn(key).calls:
                if id(c) in p._dead_calls or not p.surely_runs(key, c):
                    continue
                t = p._target(key[0], c.ref)
                if t is None or t[0] == key or p.opaque_to_dynamo(t[0]):
                    continue
                if p.fn(t[0]).name != "__init__" and self.surely(t[0], depth + 1, stack | {key}):
                    got = True
                    break
        self._sure_memo[key] = got
        return got

    def keep(self, path: str, c: Candidate) -> bool:
        """A candidate without ``via`` is kept; one with it when a call target breaks."""
        via = c.args.get("via")
        if not via:
            return True
        if via == AT_CALL:  # the object calls recorded at the candidate's position (CL116)
            fn = self.project.files[path].functions.get(c.func)
            # CL116: the object calls there; CL118: every call there (a class built with the
            # generator runs its `__init__`, whose break counts)
            generator = c.code in (GENERATOR_ARG, HELD_OBJECT)
            if c.code == HELD_OBJECT and not (
                c.args.get("live") and self._holds_own_method(path, c.args.get("held_ref", ""))
            ):
                return False
            refs = [
                s.ref
                for s in (fn.calls if fn is not None else ())
                if s.line == c.line and s.col == c.col and (generator or s.ref.startswith("O|"))
            ]
        else:
            refs = via.split("\n")
        for ref in refs:
            t = self.project._target(path, ref)
            if t is None:
                continue
            callee = self.project.fn(t[0])
            if self.project.opaque_to_dynamo(t[0]) or (
                callee.name == "__init__"
                and not (via == AT_CALL and c.code in (GENERATOR_ARG, HELD_OBJECT))
            ):
                continue
            if self.breaks(t[0]):
                if "returned" not in c.args:
                    return True
                if self._per_call_return(path, f"R|{ref}{c.args['returned']}"):
                    return True
        return False

    def _holds_own_method(self, path: str, ref: str) -> bool:
        """The class ``ref`` builds has an ``__init__`` (its own or inherited) that stores a
        bound method of the object (``FunctionFacts.binds_own_method``)."""
        t = self.project._target(path, ref) if ref else None
        if t is None:
            return False
        fn = self.project.fn(t[0])
        return fn.name == "__init__" and fn.binds_own_method

    def _per_call_return(self, path: str, src: str) -> bool:
        """What ``R|<ref>@<i>`` returns is a per-call int: a size computed in the callee
        (:func:`_per_call_size`) or a number read from data (:func:`_data_number`)."""
        got = _returned(self.project, path, src)
        if got is None:
            return False
        v = got[1]
        return _data_number(v) or _per_call_size(self.project, got[0][0], v)


# ---------------------------------------------------------------------------- frame inputs
@dataclass(frozen=True)
class FrameInput:
    """A parameter of a function compiled as a frame of its own (it breaks the graph, so its
    caller breaks at the call and dynamo starts a new frame at it) that receives a Python int
    changing from call to call: a loop's variable at a call in that loop, an int computed
    from a tensor's size (another batch or length changes it), or a parameter of such a frame
    passed on to another breaking function. dynamo specialises an int frame input
    on its first value: the second value recompiles the frame, at the parameter's first use."""

    path: str
    line: int  # the parameter's first use in the function (where torch reports the guard)
    function: str
    param: str
    # the call (or the caller's ``def``) whose values make the frame recompile: the finding's
    # context, which a finding in a shared file carries as its frames (``args["context"]``)
    caller_path: str
    caller_line: int
    caller: str
    wrapped: tuple[str, ...] = ()  # a decorator's wrapper: the decorated functions that break
    returned_by: str = ""  # a number returned by this call, which breaks (see returned_inputs)
    none_first: bool = False  # a loop-carried argument, ``None`` on the first iteration
    sized: bool = False  # an int computed from a tensor's size, passed outside a loop
    frame: str = ""  # the function that breaks, when its parameter is first read in a callee
    closure: bool = False  # ``param`` is the wrapped function, a cell of the wrapper's closure
    # the call sites of the frame differ in what they pass: ``"none"`` (``None`` at one, a
    # value at another), ``"kwargs"`` (the keywords a decorator's ``**kwargs`` receives)
    differs: str = ""


def _varying_int(v: Any) -> bool:
    return V.kind(v) == "scalar" and v[1] == "int" and V.const(v) is ...


def _per_call_size(project: Project, path: str, v: Any) -> bool:
    """An int computed from a tensor's size (:data:`values.SIZE_INT`): it changes between calls
    with another batch or length, outside any loop too. A symbolic operand of the arithmetic
    (`n % self.window`, `n % self.config.window`) must not be a tensor: a module attribute
    not assigned one, or a certain number."""
    ms = V.members(v)
    if V.SIZE_INT not in ms:
        return False
    for m in ms:
        if m[0] == "S":
            continue
        if m[0] != "Y":
            return False
        base, _steps = V.split_source(m[1])
        if base.startswith("A|"):
            # what `attr_values` knows of an attribute are the Python literals its class's
            # `__init__` is given (never a tensor); an attribute assigned a tensor, a buffer or
            # anything else is unknown there (None), as one read from a config is
            continue
        # imported here: the numbers analysis imports libcst and the walker, which a warm run
        # (stored results, no file analysed) never needs; the engine imports this module
        from compilelint.static.analysis.numbers import certainly_number

        if not certainly_number(m, project.files[path]):
            return False
    return True


def _bound(project: Project, target: FKey, implicit: int, c: CallSite) -> dict[str, Any]:
    """The value a call site passes to each parameter of ``target`` (when it shows)."""
    fn = project.fn(target)
    pos = [p.name for p in fn.params if p.index >= 0][implicit:]
    out: dict[str, Any] = dict(zip(pos, c.args))
    names = {p.name for p in fn.params if p.index > -2}
    out.update({k: v for k, v in c.kwargs.items() if k in names})
    return out


def _none_first(project: Project, target: FKey, implicit: int, c: CallSite) -> list[str]:
    """Parameters of ``target`` that a call in a loop passes a loop-carried name holding
    ``None`` at the call (``bias = None`` before the loop, ``bias`` rebound in its body): the
    first iteration passes ``None``, the next ones what the body left there."""
    fn = project.fn(target)
    pos = [p.name for p in fn.params if p.index >= 0][implicit:]
    names = {p.name for p in fn.params if p.index > -2}
    out: list[str] = []
    for key in c.carried:
        if key.isdigit():
            i = int(key)
            if i < len(c.args) and i < len(pos) and c.args[i] == V.NONE:
                out.append(pos[i])
        elif key in names and c.kwargs.get(key) == V.NONE:
            out.append(key)
    return out


def _deep_use(
    project: Project, breaks: CalleeBreaks, key: FKey, param: str, depth: int = 0
) -> tuple[FKey, str, int]:
    """Where a frame's parameter is first read: its first use in the function, or, when that
    use only passes it on (it sits in the arguments of the last call starting before it), the
    first read in the callee, which dynamo inlines (torch reports the guard there: the
    ``position_bias is None`` test in a T5 attention, not the block that passes it down). A
    callee that breaks before that read (or a class built there) is not followed: the frame
    breaks at that call, and torch reports the guard on the call's line (BigBird's
    ``set_attention_type``)."""
    fn = project.fn(key)
    line = _first_use(fn, param)
    if not line or depth >= 4:
        return key, param, line
    prior = [c for c in fn.calls if 0 < c.line <= line]
    if not prior:
        return key, param, line
    last = max(c.line for c in prior)
    src = V.sym(f"P|{key[1]}|{param}")
    for c in prior:
        if c.line != last or id(c) in project._dead_calls:
            continue
        t = project._target(key[0], c.ref)
        if t is None or t[0] == key or project.opaque_to_dynamo(t[0]):
            continue
        if project.fn(t[0]).name == "__init__":
            continue
        for p, v in _bound(project, t[0], t[1], c).items():
            if v == src:
                if breaks.breaks(t[0]) and _breaks_before(project, breaks, t[0], p):
                    continue
                got = _deep_use(project, breaks, t[0], p, depth + 1)
                if got[2]:
                    return got
    return key, param, line


def _breaks_before(project: Project, breaks: CalleeBreaks, key: FKey, param: str) -> bool:
    """A kept break of ``key``'s own body, or a call of a function that breaks, at or before
    the first use of ``param`` (a call that passes ``param`` on is left to the caller's walk
    down)."""
    line = _first_use(project.fn(key), param)
    src = V.sym(f"P|{key[1]}|{param}")
    f = project.files[key[0]]
    for c in project.kept(f, breaks.codes):
        if c.func == key[1] and not _conditional(c) and (not line or c.line <= line):
            return True
    for cs in project.fn(key).calls:
        if line and cs.line > line:
            continue
        t = project._target(key[0], cs.ref)
        if t is None or t[0] == key or not breaks.breaks(t[0]):
            continue
        passes = src in cs.args or src in cs.kwargs.values()
        if not passes or project.fn(t[0]).name == "__init__":
            return True  # a class built with it: built outside the graph, the frame breaks
    return False


def _first_use(fn: FunctionFacts, param: str) -> int:
    return next((int(r[2]) for r in fn.guards if r[0] == param and r[1] == "use" and r[2]), 0)


def frame_inputs(project: Project, breaks: CalleeBreaks) -> list[FrameInput]:
    """Every :class:`FrameInput` of the traced code (see there). Only calls in loops passing
    an int whose value is not known, calls passing an int computed from a tensor's size
    (:data:`values.SIZE_INT`), and the parameters those reach, are looked at."""
    out: dict[tuple[FKey, str], FrameInput] = {}
    work: list[tuple[FKey, str, FrameInput]] = []

    def add(
        key: FKey,
        param: str,
        caller: FKey,
        c: CallSite,
        none_first: bool = False,
        sized: bool = False,
    ) -> None:
        if (key, param) in out:
            return
        use_key, use_param, line = _deep_use(project, breaks, key, param)
        if not line:
            return
        fi = FrameInput(
            use_key[0],
            line,
            use_key[1],
            use_param,
            caller[0],
            c.line,
            caller[1],
            none_first=none_first,
            frame=key[1] if use_key != key else "",
            sized=sized,
        )
        out[(key, param)] = fi
        work.append((key, param, fi))

    def target(key: FKey, c: CallSite) -> tuple[FKey, int] | None:
        # a call with `**kwargs` keeps its explicit arguments; the walker records carried
        # arguments only where no `*args` shifts the positions
        if id(c) in project._dead_calls or (c.star and not c.carried):
            return None
        t = project._target(key[0], c.ref)
        if t is None or t[0] == key:
            return None
        callee = project.fn(t[0])
        if project.opaque_to_dynamo(t[0]) or callee.name == "__init__":
            return None
        return t

    for key in sorted(project.traced):
        for c in project.fn(key).calls:
            # an int computed from a tensor's size changes between calls (another batch or
            # length), in a loop or not: Longformer's `padding_len`, passed to an encoder that
            # breaks on `.item()`
            vals = (*c.args, *c.kwargs.values())
            if not c.star and any(V.SIZE_INT in V.members(v) for v in vals):
                t = target(key, c)
                if t is not None:
                    bound = _bound(project, t[0], t[1], c)
                    sizes = [p for p, v in bound.items() if _per_call_size(project, key[0], v)]
                    if sizes and breaks.breaks(t[0]):
                        for p in sizes:
                            add(t[0], p, key, c, sized=True)
            if not c.in_loop:
                continue
            t = target(key, c)
            if t is None:
                continue
            bound = _bound(project, t[0], t[1], c)
            ints = [] if c.star else [p for p, v in bound.items() if _varying_int(v)]
            nones = _none_first(project, t[0], t[1], c) if c.carried else []
            if (ints or nones) and breaks.breaks(t[0]):
                for p in ints:
                    add(t[0], p, key, c)
                for p in nones:
                    add(t[0], p, key, c, none_first=True)
    while work:  # a varying parameter passed on to another function that breaks
        key, param, fi = work.pop()
        src = f"P|{key[1]}|{param}"
        for c in project.fn(key).calls:
            t = target(key, c)
            if t is None:
                continue
            got = [p for p, v in _bound(project, t[0], t[1], c).items() if v == V.sym(src)]
            if got and breaks.breaks(t[0]):
                for p in got:
                    add(t[0], p, key, c, sized=fi.sized)
    return sorted(out.values(), key=lambda f: (f.path, f.line, f.param))


def own_frames(project: Project, breaks: CalleeBreaks) -> set[FKey]:
    """Traced functions dynamo compiles as frames of their own: one that breaks (its caller
    breaks at the call and the call runs as a new frame), and every function called by one
    whose frame dynamo skips, after the break where that frame starts
    (:meth:`CalleeBreaks.skips_from`). Only functions traced code calls:
    what an entry point receives is the user's (or the spec's) to say."""
    out: set[FKey] = set()
    for key in sorted(project.traced):
        if not project.callers.get(key) or project.opaque_to_dynamo(key):
            continue
        if project.fn(key).name != "__init__" and breaks.breaks(key):
            out.add(key)
    for key in sorted(project.traced):
        start = None if project.opaque_to_dynamo(key) else breaks.skips_from(key)
        if start is None:
            continue
        for c in project.fn(key).calls:
            if id(c) in project._dead_calls or c.line < start:
                continue
            t = project._target(key[0], c.ref)
            if t is None or t[0] == key:
                continue
            if project.opaque_to_dynamo(t[0]) or project.fn(t[0]).name == "__init__":
                continue
            out.add(t[0])
    return out


def site_inputs(project: Project, breaks: CalleeBreaks) -> list[FrameInput]:
    """Arguments of a frame of its own (:func:`own_frames`) whose call sites differ in a way
    dynamo guards on: ``None`` from one site (or the site's callers) and a value from another
    (an encoder calling a block without a cache, the decoder with one; a mask passed to the
    first layer only), or, through a decorator's ``(*args, **kwargs)`` wrapper, different
    keywords (``len(kwargs) == 1``). The frame is compiled for the first site's arguments and
    guarded on them, so the other site recompiles it. torch 2.13 reports the guard where the
    value is first read (``cache is None``); when the first site passes a tensor and a later
    one ``None``, the tensor-type guard, on the ``def`` line."""
    out: dict[tuple[FKey, str], FrameInput] = {}
    for key in sorted(own_frames(project, breaks)):
        fn = project.fn(key)
        sites = project.callers.get(key, ())
        if len(sites) < 1:
            continue
        wrappers = [w for w, _s in project.decorator_wrappers(key)]
        if wrappers:
            _kwargs_differ(project, key, wrappers[0], sites, out)
            if any(k[0] == key for k in out):
                continue  # the wrapper's guard on its keywords fails first
        def_line = next((int(r[2]) for r in fn.guards if r[1] == "def"), fn.line)
        for prm in fn.params:
            if prm.index < -1 or prm.name in ("self", "cls") or prm.annotation == "nontensor":
                continue
            per_site = sorted(project.site_noneness(key, prm.name))
            pair = _differing(project, key, per_site)
            if pair is None:
                continue
            first_none, caller = pair
            use_key, use_param, line = _deep_use(project, breaks, key, prm.name)
            if not line:
                continue
            if not first_none and prm.annotation == "tensor" and per_site[0][0] == key[0]:
                use_key, use_param, line = key, prm.name, def_line
            out[(key, prm.name)] = FrameInput(
                use_key[0],
                line,
                use_key[1],
                use_param,
                caller[0],
                caller[1],
                key[1],
                frame=key[1] if use_key != key else "",
                differs="none",
            )
    return sorted(out.values(), key=lambda f: (f.path, f.line, f.param))


def _differing(
    project: Project, key: FKey, per_site: list[tuple[str, int, frozenset[str]]]
) -> tuple[bool, tuple[str, int, frozenset[str]]] | None:
    """(whether the first site passes ``None``, a site passing the other) when two call sites
    in one file pass ``None`` at one and a value at another, decided by that file (see
    :meth:`Project.site_noneness`), else None."""

    def split(kinds: frozenset[str]) -> tuple[set[str], set[str]]:
        nones = {k[5:] for k in kinds if k.startswith("none|")}
        somes = {k[5:] for k in kinds if k.startswith("some|")}
        return nones, somes

    if len(per_site) == 1:
        nones, somes = split(per_site[0][2])
        if nones & somes:
            # one site in a method of a class the model holds twice (an encoder and a decoder
            # stack): `None` on one instance's path, an object on the other's
            cq = _caller_class(project, key, per_site[0])
            if cq is not None and project.instances(*cq) >= 2:
                return True, per_site[0]
        return None
    for a in per_site:
        a_none, a_some = split(a[2])
        if not a_none or a_some or "?" in a[2]:
            continue  # not certainly `None`
        for b in per_site:
            b_none, b_some = split(b[2])
            if b is a or b[0] != a[0] or b[0] != key[0] or b_none or not (a_none & b_some):
                # two calls in the frame's own file (a model's block called by its encoder and
                # decoder): a shared library function (a masking helper) called by many models
                # would be one finding on a line every model runs, true in some and not others
                continue
            first = per_site[0]
            return (first is a or bool(split(first[2])[0])), (b if first is a else a)
    return None


def _caller_class(
    project: Project, key: FKey, site: tuple[str, int, frozenset[str]]
) -> tuple[str, str] | None:
    """The class of the method holding the call site (path, line) of ``key``."""
    for cpath, call, _i in project.callers.get(key, ()):
        if (cpath, call.line) != site[:2]:
            continue
        for f in project.files[cpath].functions.values():
            if f.cls and any(c is call for c in f.calls):
                return cpath, f.cls
    return None


def _kwargs_differ(
    project: Project,
    key: FKey,
    wrapper: FKey,
    sites: Any,
    out: dict[tuple[FKey, str], FrameInput],
) -> None:
    """A decorated frame (compiled as its wrapper) whose call sites pass different keywords
    to a wrapper taking ``**kwargs``: guarded on the dict's length and keys."""
    wfn = project.fn(wrapper)
    kw = next((p.name for p in wfn.params if p.index == -3), None)
    if kw is None:
        return
    keysets = set()
    for _cpath, call, _implicit in sites:
        if call.star:
            return
        keysets.add(frozenset(call.kwargs))
    line = _first_use(wfn, kw)
    if len(keysets) < 2 or not line or wfn.closure_call[1:2] != [line]:
        # torch 2.13 reports `len(kwargs) == N` where the wrapper passes the dict on to the
        # function it wraps; a wrapper that reads it before (`if old in kwargs:`) is left out
        return
    cpath, call, _i = sites[-1]
    out[(key, kw)] = FrameInput(
        wrapper[0],
        line,
        wrapper[1],
        kw,
        cpath,
        call.line,
        key[1],
        frame=key[1],
        differs="kwargs",
    )


def _data_number(v: Any, depth: int = 0) -> bool:
    """A number read from tensor data (:data:`values.DATA`), or a tuple/list holding them."""
    for m in V.members(v):
        if m[0] == "S" and m[1] == "data":
            return True
        if m[0] == "Q" and depth < 3 and _data_number(m[3], depth + 1):
            return True
    return False


def _returned(project: Project, path: str, src: str) -> tuple[FKey, Any] | None:
    """``R|<ref>@<i>...``: the called function and the value it returns at that path."""
    ref, _, steps = src[2:].partition("@")
    t = project._target(path, ref)
    if t is None:
        return None
    v = project.return_value(t[0])
    for step in steps.split("@") if steps else ():
        if step == "*":
            v = V.element(v, None)
        elif step.startswith("k:"):
            v = V.element(v, step[2:])
        elif step.isdigit():
            v = V.element(v, int(step))
        else:
            return None
    return t[0], v


def returned_inputs(project: Project, breaks: CalleeBreaks) -> list[FrameInput]:
    """Numbers read from tensor data (``.tolist()``, ``.item()``), or ints computed from a
    tensor's size (:func:`_per_call_size`), that a call which breaks returns, passed on to
    another scanned function. The caller breaks at that call, so what
    the call returns is an input of the resume function dynamo compiles after it (its stack,
    ``___stack0``), specialised on its value where it is first used: torch 2.13 reports the
    guard (``___stack0[1][2] == 1``) at that use, in the function the number is passed to
    (inlined into the resume function), and recompiles when the data changes."""
    out: dict[tuple[FKey, str], FrameInput] = {}
    for key in sorted(project.traced):
        fn = project.fn(key)
        if len(fn.calls) < 2:
            continue
        top: set[FKey] | None = None  # callees called outside loops (the frame resumes there)
        for c in fn.calls:
            if id(c) in project._dead_calls or c.star:
                continue
            srcs = [
                (i, v[1])
                for i, v in [*enumerate(c.args), *c.kwargs.items()]
                if v[0] == "Y" and v[1].startswith("R|")
            ]
            if not srcs:
                continue
            t = project._target(key[0], c.ref)
            if t is None or t[0] == key or project.opaque_to_dynamo(t[0]):
                continue
            bound = _bound(project, t[0], t[1], c)
            for pname, v in bound.items():
                if v[0] != "Y" or not v[1].startswith("R|") or (t[0], pname) in out:
                    continue
                got = _returned(project, key[0], v[1])
                if got is None or not breaks.breaks(got[0]):
                    continue
                if not _data_number(got[1]) and not _per_call_size(project, got[0][0], got[1]):
                    continue
                if top is None:
                    top = set()
                    for c0 in fn.calls:
                        t0 = None if c0.in_loop else project._target(key[0], c0.ref)
                        if t0 is not None:
                            top.add(t0[0])
                if got[0] not in top:
                    continue
                line = _first_use(project.fn(t[0]), pname)
                if line:
                    out[(t[0], pname)] = FrameInput(
                        t[0][0],
                        line,
                        t[0][1],
                        pname,
                        key[0],
                        c.line,
                        key[1],
                        returned_by=got[0][1],
                    )
    return sorted(out.values(), key=lambda f: (f.path, f.line, f.param))


def frame_input_candidate(fi: FrameInput, line_text: str, code: str) -> Candidate:
    """The finding of a :class:`FrameInput`, on the parameter's name in its first use."""
    at = re.search(rf"\b{re.escape(fi.param)}\b", line_text)
    col = at.start() + 1 if at else len(line_text) - len(line_text.lstrip()) + 1
    end = at.end() + 1 if at else len(line_text.rstrip()) + 1
    caller = os.path.basename(fi.caller_path)
    args = (
        _sites_args(fi)
        if fi.differs
        else _closure_args(fi)
        if fi.closure
        else _wrapper_args(fi)
        if fi.wrapped
        else _returned_args(fi)
        if fi.returned_by
        else _none_args(fi)
        if fi.none_first
        else {
            "name": fi.param,
            "what": (
                f"is an int argument of `{fi.frame or fi.function}`, which breaks the graph and so "
                f"is compiled as a frame of its own; `{fi.caller}` ({caller}:{fi.caller_line}) "
                + (
                    "passes it an int computed from a tensor's size, which changes with the "
                    "batch or the length"
                    if fi.sized
                    else "passes it a value that changes from call to call (a loop's variable)"
                )
                + (f" (first read here, in `{fi.function}`, which it calls)" if fi.frame else "")
            ),
            "why": WHY_INT.format(
                name=fi.param, when="a call with another size" if fi.sized else "the second value"
            ),
        }
    )
    if fi.caller_path != fi.path:
        args[CONTEXT] = f"{fi.caller_path}\t{fi.caller_line}\t{fi.caller}"
    return Candidate(
        code=code,
        func=fi.function,
        line=fi.line,
        col=col,
        end_line=fi.line,
        end_col=end,
        requires=[],
        args=args,
        scope="any",
    )


def _sites_args(fi: FrameInput) -> dict[str, str]:
    caller = os.path.basename(fi.caller_path)
    frame = fi.frame or fi.function
    if fi.differs == "kwargs":
        return {
            "name": fi.param,
            "what": (
                f"is the `**{fi.param}` of the wrapper a decorator puts around `{frame}`, which "
                "is compiled as a frame of its own (it breaks the graph, or its caller's frame is "
                f"skipped); its call sites pass different keywords ({caller}:{fi.caller_line})"
            ),
            "why": (
                f"dynamo guards on the keywords the frame receives (`len({fi.param}) == N`), so "
                "the call with other keywords recompiles the wrapper"
            ),
        }
    return {
        "name": fi.param,
        "what": (
            f"is an argument of `{frame}`, compiled as a frame of its own (it breaks the graph, "
            "or its caller's frame is skipped); one call site (or one instance of the calling "
            f"class: an encoder and a decoder stack) passes `None` and another a value "
            f"({caller}:{fi.caller_line})"
            + (f" (first read here, in `{fi.function}`, which it calls)" if fi.frame else "")
        ),
        "why": (
            "dynamo guards on the frame's argument being `None` (or on its type), so the call "
            "site that passes the other recompiles the frame"
        ),
    }


def _none_args(fi: FrameInput) -> dict[str, str]:
    caller = os.path.basename(fi.caller_path)
    return {
        "name": fi.param,
        "what": (
            f"is an argument of `{fi.frame or fi.function}`, which breaks the graph and so is "
            f"compiled as a frame of its own; `{fi.caller}` ({caller}:{fi.caller_line}) calls "
            "it in a loop with a loop-carried value, `None` on the first iteration and what the "
            "loop body left in it on the next"
            + (f" (first read here, in `{fi.function}`, which it calls)" if fi.frame else "")
        ),
        "why": (
            "dynamo guards on the frame's argument being `None` (torch reports the guard where "
            "it is first read), so the second iteration recompiles the frame"
        ),
    }


def _returned_args(fi: FrameInput) -> dict[str, str]:
    caller = os.path.basename(fi.caller_path)
    return {
        "name": fi.param,
        "what": (
            f"receives per-call ints (numbers read from tensor data, or a size computed "
            f"there) that `{fi.returned_by}` returns (`{fi.caller}`, {caller}:"
            f"{fi.caller_line}); that call breaks the graph, so they are inputs of the resume "
            "function dynamo compiles after it"
        ),
        "why": (
            "dynamo specialises them on their values where they are first used (guard "
            "`___stack0[...] == <value>`), so other data or another size recompiles it"
        ),
    }


def _closure_args(fi: FrameInput) -> dict[str, str]:
    names = ", ".join(f"`{w}`" for w in fi.wrapped[:3])
    return {
        "name": fi.param,
        "what": (
            f"is the function `{fi.function}` wraps, the wrapper a decorator puts around several "
            f"functions that break the graph ({names}; `{fi.caller}` calls another of them), so "
            "dynamo compiles the wrapper as a frame of its own, once per decorated function"
        ),
        "why": (
            f"`{fi.param}` is a cell of the wrapper's closure: dynamo guards on its code object "
            f"(`___check_obj_id({fi.param}.__code__, ...)`), so the next decorated function "
            "recompiles the wrapper"
        ),
    }


def _wrapper_args(fi: FrameInput) -> dict[str, str]:
    names = ", ".join(f"`{w}`" for w in fi.wrapped[:3])
    return {
        "name": fi.param,
        "what": (
            f"holds the arguments of `{fi.function}`, the wrapper a decorator puts around "
            f"several functions that break the graph ({names}; `{fi.caller}` calls another "
            "of them), so dynamo compiles the wrapper as a frame of its own"
        ),
        "why": (
            "it guards on the arguments (their number and types) and on the function it wraps, "
            f"so the next decorated function recompiles it (a guard on `{fi.param}`: its length, "
            f"the type of `{fi.param}[0]`)"
        ),
    }


def wrapper_inputs(project: Project, breaks: CalleeBreaks) -> list[FrameInput]:
    """Decorator wrappers compiled as frames of their own for several functions: a function
    that breaks, decorated with the wrapper, calls (within a few calls) another such function
    decorated with the same wrapper, and the wrapper takes ``(*args, **kwargs)`` only (the
    arguments, their number and types, are what its guards check). The finding sits at the
    first use of the wrapper's ``*args``; for a wrapper with a parameter before ``*args``
    (``wrapper(self, *args, **kwargs)``), at its call of the wrapped function."""
    by_wrapper: dict[FKey, list[FKey]] = {}
    for key in sorted(project.traced):
        if not project.fn(key).decorators:
            continue
        for w, _site in project.decorator_wrappers(key):
            by_wrapper.setdefault(w, []).append(key)
    out: list[FrameInput] = []
    for w, keys in sorted(by_wrapper.items()):
        broken = [k for k in dict.fromkeys(keys) if breaks.breaks(k)]
        if len(broken) < 2:
            continue
        wfn = project.fn(w)
        star = [p.name for p in wfn.params if p.index == -2]
        closure = not star or any(p.index >= 0 for p in wfn.params)
        # `wrapper(self, *args, **kwargs)`: callers pass the rest by keyword, `args` is `()`
        # on every call and `self` a module of the same kind; what differs is the function it
        # wraps, a cell of the closure: dynamo guards on its code object
        # (`___check_obj_id(func.__code__, ...)`) where the wrapper calls it
        name, at = wfn.closure_call if wfn.closure_call else ("", 0)
        line = 0 if closure else _first_use(wfn, star[0])
        if (closure and not (name and at)) or (not closure and not line):
            continue
        # the first read, and, when it sits in a branch (`if is_instance_method:
        # args[0]...`), the first read every path reaches: functions that skip the branch
        # are guarded there (`not args`, a decorated function called with keywords only)
        top = next(
            (
                int(r[2])
                for r in wfn.guards
                if star and r[0] == star[0] and r[1] == "use_top" and r[2]
            ),
            0,
        )
        # one finding per file whose pair of decorated functions recompiles the wrapper: a
        # wrapper in a shared utility recompiles for the models holding such a pair, and only
        # those (the finding's context, :attr:`FrameInput.caller_path`)
        for pair in _nested(project, broken, breaks):
            ctx = (pair[0][0], project.fn(pair[0]).line, pair[0][1])
            wrapped = tuple(k[1] for k in pair)
            if closure:
                out.append(FrameInput(w[0], int(at), w[1], str(name), *ctx, wrapped, closure=True))
                continue
            for at_line in (line, top) if top else (line,):
                out.append(FrameInput(w[0], at_line, w[1], star[0], *ctx, wrapped))
    return out


def _nested(project: Project, keys: list[FKey], breaks: CalleeBreaks) -> list[tuple[FKey, FKey]]:
    """(caller, callee) pairs: one of ``keys`` that every call of the entry reaches
    (:meth:`Project.surely_reached`) calling another that surely breaks
    (:meth:`CalleeBreaks.surely`) within three calls outside branches (every call of the
    caller compiles the wrapper for both); the first pair of each caller's file. A callee
    that breaks only on some inputs' path (an image encoder under ``if pixel_values is not
    None:``) does not make the wrapper recompile for the models whose calls skip it."""
    want = {k for k in keys if breaks.surely(k)}
    out: dict[str, tuple[FKey, FKey]] = {}
    for k in keys:
        if k[0] in out or not want or not project.surely_reached(k):
            continue
        seen = {k}
        frontier = [k]
        for _ in range(3):
            nxt: list[FKey] = []
            for f in frontier:
                for site in project.fn(f).calls:
                    if id(site) in project._dead_calls:
                        continue
                    if not project.surely_runs(f, site):
                        continue
                    t = project._target(f[0], site.ref)
                    c = t[0] if t is not None else None
                    if c is None or c in seen:
                        continue
                    if c in want:
                        out.setdefault(k[0], (k, c))
                        break
                    seen.add(c)
                    nxt.append(c)
                if k[0] in out:
                    break
            if k[0] in out:
                break
            frontier = nxt
    return list(out.values())
