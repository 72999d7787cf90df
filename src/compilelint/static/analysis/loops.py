"""Breaks torch never reaches because an earlier break in a loop, or in a ``with`` block whose
manager dynamo cannot enter again (:data:`UNRESUMABLE`, below), makes dynamo skip the frame.

torch 2.13: a graph break inside a ``for``/``while`` loop of the frame being compiled makes
dynamo give up on that frame ("graph break in for loop": the frame runs eagerly; the functions
it calls are compiled as frames of their own). Every later break of the same frame then runs in
eager code and is never reported; it shows only once the first is fixed. The first break must
be one every iteration reaches: a statement at the top level of a loop's body (a nested
``for``'s header, an ``if``'s test), not one under an ``if``/``try``/``with`` of the loop, nor a
``while``'s test (torch 2.13 still reports the breaks of that loop's body). Lines are the first lines of the break candidates (a statement spanning several lines
breaks at the first of its candidates first: execution order within a statement follows the
source).
"""

from __future__ import annotations

import ast
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator

from compilelint.static.analysis import names as N

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)

# Context managers dynamo cannot enter again in a resume function (issue 23, pred23q; torch
# 2.13, an inner ``.item()`` break, docs/corpus.md): a break inside their ``with`` body skips
# the rest of the frame, as a break in a loop does (it runs eagerly; later breaks of the frame
# are not reported). ``contextlib.suppress`` and ``warnings.catch_warnings``, a user
# ``@contextmanager`` function or a class of the file with ``__enter__``: the inner line is
# reported; ``torch.random.fork_rng`` and ``torch.backends.cuda.sdp_kernel``: torch reports the
# ``with`` line itself (GB0142), here the inner line stands for it. torch's own ``no_grad``,
# ``enable_grad``, ``inference_mode``, ``autocast``, ``record_function``, ``sdpa_kernel`` and
# ``contextlib.nullcontext`` resume inside the block (not listed). Names are matched by their
# dotted tail as written (``from contextlib import suppress``: ``suppress``).
UNRESUMABLE = frozenset(
    {
        "contextlib.suppress",
        "suppress",
        "warnings.catch_warnings",
        "catch_warnings",
        "torch.random.fork_rng",
        "random.fork_rng",
        "fork_rng",
        "torch.backends.cuda.sdp_kernel",
        "cuda.sdp_kernel",
        "sdp_kernel",
    }
)


# of those, the ones torch reports at the ``with`` line (GB0142: the manager cannot be entered
# again in a resume function; torch 2.13 skips the frame there)
AT_WITH = frozenset(
    {
        "torch.random.fork_rng",
        "random.fork_rng",
        "fork_rng",
        "torch.backends.cuda.sdp_kernel",
        "cuda.sdp_kernel",
        "sdp_kernel",
    }
)


def reported_at_with(tree: ast.Module) -> list[tuple[int, int, int, int]]:
    """(first, last line of the body, the ``with`` line, its column) of each ``with`` of ``tree`` whose
    manager is one of :data:`AT_WITH`: torch reports a break inside its body at the ``with``
    line."""
    out: list[tuple[int, int, int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and node.body:
            for item in node.items:
                e = item.context_expr
                if N.ast_dotted(e.func if isinstance(e, ast.Call) else e) in AT_WITH:
                    last = node.body[-1]
                    end = last.end_lineno or last.lineno
                    out.append((node.body[0].lineno, end, node.lineno, node.col_offset))
                    break
    return out


def user_managers(tree: ast.Module) -> frozenset[str]:
    """The names of the module-level context managers of ``tree`` dynamo cannot resume in: a
    function decorated with ``contextmanager`` (``contextlib.contextmanager``) and a class
    that defines ``__enter__``."""
    out: set[str] = set()
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in st.decorator_list:
                name = N.ast_dotted(d)
                if name is not None and name.rsplit(".", 1)[-1] == "contextmanager":
                    out.add(st.name)
        elif isinstance(st, ast.ClassDef):
            if any(
                isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef)) and x.name == "__enter__"
                for x in st.body
            ):
                out.add(st.name)
    return frozenset(out)


def _unresumable(st: ast.With | ast.AsyncWith, users: frozenset[str]) -> bool:
    """Whether one of ``st``'s managers is one dynamo cannot enter again after a break."""
    for item in st.items:
        e = item.context_expr
        name = N.ast_dotted(e.func if isinstance(e, ast.Call) else e)
        if name is not None and (name in UNRESUMABLE or name in users):
            return True
    return False


def _compound(st: ast.stmt) -> bool:
    return any(isinstance(getattr(st, f, None), list) for f in ("body", "cases"))


def _header(st: ast.stmt) -> list[tuple[int, int]]:
    """The spans of a compound statement every run of it reaches: an ``if``'s test, a
    ``with``'s items (not their bodies, which a branch or an exception may skip)."""
    heads: list[ast.expr] = []
    if isinstance(st, ast.If):
        heads = [st.test]
    elif isinstance(st, (ast.With, ast.AsyncWith)):
        heads = [i.context_expr for i in st.items]
    elif isinstance(st, ast.Match):
        heads = [st.subject]
    return [(h.lineno, h.end_lineno or h.lineno) for h in heads]


def _frame_lines(
    fn: ast.AST, users: frozenset[str] = frozenset()
) -> tuple[set[int], list[tuple[int, int]]]:
    """(lines of ``fn``'s own code, not nested functions'; (first, last) line of each statement
    every iteration of some loop of ``fn`` reaches, or every run of the body of a ``with``
    whose manager dynamo cannot resume in (:data:`UNRESUMABLE`, ``users``))."""
    own: set[int] = set()
    always: list[tuple[int, int]] = []

    def statements(body: list[ast.stmt], in_loop: bool) -> None:
        for st in body:
            if isinstance(st, _FUNCS):
                continue  # another frame
            first, last = st.lineno, st.end_lineno or st.lineno
            if in_loop and not isinstance(st, _LOOPS):
                always.extend(_header(st) if _compound(st) else [(first, last)])
            if isinstance(st, _LOOPS):
                head = st.iter if isinstance(st, (ast.For, ast.AsyncFor)) else st.test
                if in_loop and not isinstance(st, ast.While):
                    # a nested ``for``'s header runs on every iteration of the outer loop (a
                    # break at a ``while`` test does not skip the frame: torch 2.13 still
                    # reports the breaks of the loop's body)
                    always.append((head.lineno, head.end_lineno or head.lineno))
                statements(st.body, True)
                statements(st.orelse, False)
            elif isinstance(st, (ast.With, ast.AsyncWith)) and _unresumable(st, users):
                statements(st.body, True)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(st, field, None)
                    if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                        statements(sub, False)
                    elif field == "handlers" and sub:
                        for h in sub:
                            statements(h.body, False)
                if isinstance(st, ast.Match):
                    for case in st.cases:
                        statements(case.body, False)
            for node in ast.walk(st):
                ln = getattr(node, "lineno", None)
                if ln is not None:
                    own.add(ln)
        return None

    body = getattr(fn, "body", [])
    statements(body if isinstance(body, list) else [], False)
    # lines of nested functions (defs, lambdas) inside the statements belong to their frames
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, _FUNCS):
            for sub in ast.walk(node):
                ln = getattr(sub, "lineno", None)
                if ln is not None:
                    own.discard(ln)
    return own, always


def _guarded_spans(fn: ast.AST) -> list[tuple[int, int]]:
    """The spans of ``fn``'s own statements that an iteration of a loop of ``fn`` reaches
    through ``if`` bodies (and ``else`` bodies) only: each run of the loop body reaches them
    whenever the tests on the way hold (an ``if``'s test inside such a body, a simple
    statement). Not through ``with``/``try``/``match`` bodies, nor into nested loops' bodies
    (``_frame_lines`` reads those as loops of their own)."""
    out: list[tuple[int, int]] = []

    def in_if(body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (*_FUNCS, *_LOOPS)):
                continue
            if _compound(st):
                out.extend(_header(st))
                if isinstance(st, ast.If):
                    in_if(st.body)
                    in_if(st.orelse)
            else:
                out.append((st.lineno, st.end_lineno or st.lineno))

    def walk(body: list[ast.stmt], in_loop: bool) -> None:
        for st in body:
            if isinstance(st, _FUNCS):
                continue
            if isinstance(st, _LOOPS):
                walk(st.body, True)
                walk(st.orelse, False)
                continue
            if in_loop and isinstance(st, ast.If):
                in_if(st.body)
                in_if(st.orelse)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(st, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    walk(sub, False)
            for h in getattr(st, "handlers", None) or ():
                walk(h.body, False)
            for case in getattr(st, "cases", None) or ():
                walk(case.body, False)

    body = getattr(fn, "body", [])
    walk(body if isinstance(body, list) else [], False)
    return out


def _comprehension_lines(tree: ast.AST) -> set[int]:
    """Lines of the comprehensions that run as frames of their own: generator expressions, and
    before Python 3.12 (PEP 709) list, set and dict comprehensions too. When dynamo skips the
    enclosing frame it still compiles them as frames, so a break inside one is reported."""
    kinds: tuple[type[ast.AST], ...] = (ast.GeneratorExp,)
    if sys.version_info < (3, 12):
        kinds += (ast.ListComp, ast.SetComp, ast.DictComp)
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, kinds):
            for sub in ast.walk(node):
                ln = getattr(sub, "lineno", None)
                if ln is not None:
                    out.add(ln)
    return out


class LoopMemo:
    """What ``shadowed_breaks`` found in the functions of one file's previous CPython tree, for
    the editor server: its parser keeps the top-level statements an edit did not touch as the
    same objects, moved by whole lines (``static/incremental.py``), so a function's lines and
    loops are the remembered ones, relative to its ``def`` line. Entries hold their node (an id
    is never reused while its entry lives) and are used only for that same object; those a call
    does not use are dropped."""

    def __init__(self) -> None:
        # id(top-level statement) -> (it, the functions in it)
        self.functions: dict[
            int, tuple[ast.stmt, list[ast.FunctionDef | ast.AsyncFunctionDef]]
        ] = {}
        # id(function) -> (it, own lines, always-reached spans, comprehension lines), all
        # relative to the function's line
        self.frames: dict[int, tuple[ast.AST, set[int], list[tuple[int, int]], set[int]]] = {}
        # the file's own context managers the frames were read with (``user_managers``): the
        # frames are reused only while they are the same
        self.users: frozenset[str] = frozenset()


def _frame_facts(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    memo: LoopMemo | None,
    used: LoopMemo | None,
    users: frozenset[str] = frozenset(),
) -> tuple[set[int], list[tuple[int, int]], set[int]]:
    """``_frame_lines(fn)`` and ``_comprehension_lines(fn)``, from ``memo`` when it has them."""
    base = fn.lineno
    got = memo.frames.get(id(fn)) if memo is not None else None
    if got is None or got[0] is not fn:
        own, always = _frame_lines(fn, users)
        comps = _comprehension_lines(fn)
        got = (
            fn,
            {ln - base for ln in own},
            [(a - base, b - base) for a, b in always],
            {ln - base for ln in comps},
        )
    if used is not None:
        used.frames[id(fn)] = got
    return (
        {ln + base for ln in got[1]},
        [(a + base, b + base) for a, b in got[2]],
        {ln + base for ln in got[3]},
    )


def _all_functions(
    tree: ast.Module, memo: LoopMemo | None, used: LoopMemo | None
) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """``_functions(tree.body)``, per top-level statement from ``memo`` when it has it."""
    for st in tree.body:
        got = memo.functions.get(id(st)) if memo is not None else None
        if got is None or got[0] is not st:
            got = (st, list(_functions([st])))
        if used is not None:
            used.functions[id(st)] = got
        yield from got[1]


def shadowed_breaks(
    source: str,
    lines: Iterable[int],
    tree: ast.Module | None = None,
    memo: LoopMemo | None = None,
    sure: Callable[[int], bool] | None = None,
) -> dict[int, int]:
    """``{line: first}`` for the break lines (of ``lines``) that follow, in the same frame, a
    break every iteration of a loop reaches (``first``): dynamo skips the frame there, and the
    later ones run eagerly (see the module docstring). ``memo``: what the previous call found
    in the same file's previous tree (the editor server's; refilled with this call's).
    ``sure``: whether a break line's every enclosing test is known to hold
    (``Project.surely_holds`` on the candidate's conditions), asked only of lines inside a
    loop's body under ``if`` statements only (:func:`_guarded_spans`) of a frame holding two of
    the lines: such a line is reached by every iteration too, so it can be the first."""
    want = sorted(set(lines))
    if len(want) < 2:
        return {}
    if tree is None:  # the editor server passes the tree its parser keeps for this text
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return {}
    users = user_managers(tree)
    if memo is not None and memo.users != users:
        memo = LoopMemo()  # a manager added or removed: each frame's spans are read again
    used = LoopMemo() if memo is not None else None
    if used is not None:
        used.users = users
    out: dict[int, int] = {}
    for fn in _all_functions(tree, memo, used):
        # only a frame holding two of the lines can hide one behind another
        lo = bisect_left(want, fn.lineno)
        if bisect_right(want, fn.end_lineno or fn.lineno) - lo < 2:
            continue
        own, always, comps = _frame_facts(fn, memo, used, users)
        mine = [ln for ln in want if ln in own]
        first = None
        guarded: list[tuple[int, int]] | None = None
        for ln in mine:
            if any(a <= ln <= b for a, b in always):
                first = ln
                break
            if sure is None:
                continue
            if guarded is None:
                guarded = _guarded_spans(fn)
            if any(a <= ln <= b for a, b in guarded) and sure(ln):
                first = ln
                break
        if first is None:
            continue
        for ln in mine:
            if ln > first and ln not in comps:
                out[ln] = first
    if memo is not None and used is not None:
        memo.functions, memo.frames, memo.users = used.functions, used.frames, used.users
    return out


def _functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The ``def``s of ``body`` at any depth, through statements only (a ``def`` is a
    statement: no expression needs walking to find one)."""
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield st
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                yield from _functions(sub)
        for h in getattr(st, "handlers", None) or ():
            yield from _functions(h.body)
        for case in getattr(st, "cases", None) or ():
            yield from _functions(case.body)
