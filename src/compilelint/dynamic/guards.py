"""Guards users can read: torch's guard text mapped back to the user's names and source.

torch writes a failed guard in terms of its own sources: ``L['x']`` (a local), ``G['cfg']`` (a
global), ``L['self']._modules['lin']._parameters['weight']`` (a submodule's parameter),
``___stack0`` (a value on the interpreter stack when a resume function starts after a graph
break), ``___check_obj_id(L['self'].cache, 1403...)`` (an identity check). This module turns
them into the expressions the user wrote (``x``, ``cfg``, ``self.lin.weight``, the source of
the expression the break at line N produced) and says in one sentence what changed and what it
costs (e.g. a float read from data at each call: every call recompiles).

Pure: no torch. Source lines are read from the user's files (never executed).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

STACK_RE = re.compile(r"\b___stack(\d+)\b")
LOCAL_RE = re.compile(r"\bL\['([^']+)'\]")
GLOBAL_RE = re.compile(r"\bG\['([^']+)'\]")
MEMBER_RE = re.compile(r"\.(?:_modules|_parameters|_buffers|__dict__)\['([^']+)'\]")
OBJ_ID_RE = re.compile(r"___check_obj_id\((?P<x>.+?), \d+\)")
TYPE_ID_RE = re.compile(r"___check_type_id\((?P<x>.+?), \d+\)")
DICT_CONTAINS_RE = re.compile(r"(?P<neg>not )?___dict_contains\((?P<k>.+?), (?P<d>.+?)\)")
ODICT_RE = re.compile(r"___odict_getitem\((?P<d>.+?), (?P<k>.+?)\)")
INVALIDATED_RE = re.compile(r"Cache line invalidated because (?P<x>.+?) got deallocated")
EQ_FLOAT_RE = re.compile(r"^(?P<lhs>.+?) == (?P<val>-?\d+\.\d+(?:e[-+]?\d+)?)$")
EQ_INT_RE = re.compile(r"^(?P<lhs>.+?) == (?P<val>-?\d+)$")
LEN_RE = re.compile(r"^len\((?P<x>.+?)\) == (?P<val>\d+)$")
RESUME_AT_RE = re.compile(r"^torch_dynamo_resume_in_.+_at_(?P<line>\d+)$")
SIZE_RE = re.compile(
    r"tensor '(?P<x>[^']+)' (?P<what>size|stride) mismatch at index (?P<d>\d+)"
    r"(?:\. expected (?P<a>\d+), actual (?P<b>\d+))?"
)
VALUE_CALLS = (".item()", ".tolist()", "float(", "int(", "bool(")


@dataclass(frozen=True)
class GuardText:
    """A failed guard, readable. ``text``: the guard in the user's names; ``explanation``: what
    changed and what it costs; ``every_call``: the value is likely new on every call."""

    text: str
    explanation: str
    every_call: bool = False
    invalidated: bool = False  # not a failed guard: the cache entry was dropped


def is_invalidation(reason: str) -> bool:
    """``Cache line invalidated because L['x'] got deallocated``: not a guard that failed."""
    return bool(INVALIDATED_RE.search(reason))


def resume_line(function: str) -> int | None:
    """``torch_dynamo_resume_in_forward_at_40`` -> 40 (the line of the break it resumes after)."""
    m = RESUME_AT_RE.match(function or "")
    return int(m.group("line")) if m else None


def map_names(expr: str, stack_names: Mapping[int, str] | None = None) -> str:
    """torch's guard sources -> the user's expressions."""
    out = GLOBAL_RE.sub(lambda m: m.group(1).removeprefix("__import_"), expr)
    out = LOCAL_RE.sub(lambda m: m.group(1), out)
    out = MEMBER_RE.sub(lambda m: "." + m.group(1), out)
    out = ODICT_RE.sub(lambda m: f"{m.group('d')}[{m.group('k')}]", out)
    out = DICT_CONTAINS_RE.sub(
        lambda m: f"{m.group('k')} {'not in' if m.group('neg') else 'in'} {m.group('d')}", out
    )
    out = OBJ_ID_RE.sub(lambda m: f"{m.group('x')} is the object seen when compiling", out)
    out = TYPE_ID_RE.sub(lambda m: f"type({m.group('x')}) is the type seen when compiling", out)
    if stack_names:
        out = STACK_RE.sub(lambda m: stack_names.get(int(m.group(1)), m.group(0)), out)
    return out


@lru_cache(maxsize=256)
def _lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8") as fh:
            return tuple(fh.read().splitlines())
    except (OSError, UnicodeDecodeError, ValueError):
        return ()


def source_line(path: str | None, line: int | None) -> str:
    if not path or not line:
        return ""
    lines = _lines(path)
    return lines[line - 1].split("#", 1)[0].strip() if 0 < line <= len(lines) else ""


def value_expr(code: str) -> str:
    """The expression a line computes: the right side of an assignment, else the line."""
    try:
        tree = ast.parse(code.strip().rstrip(":"), mode="exec")
    except SyntaxError:
        return code.strip()
    node = tree.body[0] if tree.body else None
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        return ast.unparse(node.value)
    if isinstance(node, ast.Expr):
        return ast.unparse(node.value)
    return code.strip()


def assigned_at(path: str | None, name: str, before: int, lo: int = 1) -> int | None:
    """The last line in ``[lo, before)`` that assigns the plain name ``name`` (``name = ...``)."""
    if not path or not name.isidentifier():
        return None
    lines = _lines(path)
    rx = re.compile(rf"^\s*{re.escape(name)}\s*(?::[^=]+)?=(?!=)")
    for ln in range(min(before, len(lines) + 1) - 1, max(lo, 1) - 1, -1):
        if rx.match(lines[ln - 1]):
            return ln
    return None


def _many_digits(val: str) -> bool:
    digits = val.lstrip("-").split("e")[0].replace(".", "").strip("0")
    return len(digits) >= 5


def describe(
    guard: str,
    *,
    function: str = "",
    path: str | None = None,
    line: int | None = None,
    break_lines: frozenset[int] = frozenset(),
    source: Callable[[str | None, int | None], str] = source_line,
) -> GuardText:
    """Explain one failed guard.

    ``function``: the raw name of the recompiled code (a resume function names the break line
    its ``___stack`` values come from); ``path``/``line``: where the guard was installed;
    ``break_lines``: lines of that file where torch recorded a graph break.
    """
    inv = INVALIDATED_RE.search(guard)
    if inv:
        x = map_names(inv.group("x"), _stack_names(function, path, source))
        return GuardText(
            text=f"cache entry dropped: {x} was deallocated",
            explanation=(
                f"not a failed guard: torch guarded on {x} by identity, that object was "
                "garbage-collected, so the cached graph was thrown away and the next call "
                "compiled again"
            ),
            invalidated=True,
        )
    stack_names = _stack_names(function, path, source)
    text = map_names(guard, stack_names)
    size = SIZE_RE.search(guard)
    if size:
        return GuardText(
            text=text,
            explanation=(
                f"tensor `{map_names(size.group('x'))}` came with a new {size.group('what')} in "
                f"dim {size.group('d')}"
                + (f" ({size.group('a')} -> {size.group('b')})" if size.group("a") else "")
                + f": each new {size.group('what')} compiles a new graph until torch marks the "
                "dim dynamic"
            ),
        )
    m = EQ_FLOAT_RE.match(guard)
    if m:
        lhs_raw = m.group("lhs").strip()
        lhs = map_names(lhs_raw, stack_names)
        origin = _origin(lhs_raw, function, path, line, break_lines, source)
        noisy = _many_digits(m.group("val"))
        what = f"`{lhs}` is a Python float" + (f" {origin}" if origin else "")
        if noisy and origin:
            return GuardText(
                text=text,
                explanation=(
                    f"{what}; torch specialises on its exact value, which changes with the data on "
                    "every call, so every call recompiles (eager fallback at the recompile limit)"
                ),
                every_call=True,
            )
        return GuardText(
            text=text,
            explanation=f"{what}; torch specialises on its value, so each new value recompiles",
            every_call=noisy,
        )
    m = LEN_RE.match(guard)
    if m:
        x = map_names(m.group("x"), stack_names)
        return GuardText(
            text=text,
            explanation=(
                f"`{x}` changed length; torch guards on the length of Python lists it reads, so "
                "a list that grows on every call recompiles on every call"
            ),
            every_call=x.startswith("self."),
        )
    m = EQ_INT_RE.match(guard)
    if m:
        lhs = map_names(m.group("lhs").strip(), stack_names)
        if lhs.endswith(".item()"):
            # torch specialised on a 0-d tensor's value (``L['t'].item() == 75``): the tensor is
            # read as a Python number where it is used, and each new value compiles again
            x = lhs[: -len(".item()")]
            return GuardText(
                text=text,
                explanation=(
                    f"`{x}` is a 0-d tensor whose value torch specialised on where it is used as "
                    "a Python number (an index, a branch, a size), so each new value recompiles"
                ),
            )
        where = "attribute" if "." in lhs else "value"
        return GuardText(
            text=text,
            explanation=(
                f"`{lhs}` is a Python int {where}; torch specialises on its value, so each new "
                "value recompiles; a counter changes on every call"
            ),
            every_call="." in lhs,
        )
    obj = OBJ_ID_RE.search(guard)
    if obj:
        x = map_names(obj.group("x"), stack_names)
        return GuardText(
            text=text,
            explanation=(
                f"`{x}` is a different object than when compiled; torch guards on its identity, "
                "so a new object each call recompiles each call"
            ),
        )
    typ = TYPE_ID_RE.search(guard)
    if typ:
        x = map_names(typ.group("x"), stack_names)
        return GuardText(text=text, explanation=f"`{x}` changed type since it was compiled")
    return GuardText(text=text, explanation="")


def _stack_names(
    function: str, path: str | None, source: Callable[[str | None, int | None], str]
) -> dict[int, str]:
    """``___stack0`` in a resume function: what the break line left on the stack."""
    at = resume_line(function)
    if at is None:
        return {}
    expr = value_expr(source(path, at))
    return {0: expr or f"(the value from line {at})"}


def _origin(
    lhs: str,
    function: str,
    path: str | None,
    line: int | None,
    break_lines: frozenset[int],
    source: Callable[[str | None, int | None], str],
) -> str:
    """``that the break at line 40 produced from `h.abs().max().item()```, or ``""``."""
    at: int | None = None
    if STACK_RE.fullmatch(lhs):
        at = resume_line(function)
    else:
        name = map_names(lhs)
        if line:
            at = assigned_at(path, name, line, lo=max(1, line - 200))
    if at is None:
        return ""
    code = source(path, at)
    expr = value_expr(code)
    if STACK_RE.fullmatch(lhs):
        return f"that the graph break at line {at} produced"
    if at in break_lines or any(c in code for c in VALUE_CALLS):
        return f"that the break at line {at} produced from `{expr}`"
    return f"assigned at line {at} (`{expr}`)"
