"""Turn torch's raw graph-break and recompile records into plain, deduplicated records.

Pure functions: no torch, no I/O beyond reading the registry file. The child process
(:mod:`compilelint.dynamic.runner`) collects raw text; everything here runs in the parent and in
tests on recorded runs (``fixtures/dynamic/recorded/``).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compilelint.dynamic.registry import Registry, legacy_gb_type
from compilelint.model import Frame, ObservedBreak, ObservedRecompile

GB_LINK_RE = re.compile(r"gb(\d{4})\.html", re.I)
LOC_RE = re.compile(
    r"Graph break (?:\(.*?\) )?in user code at (?P<path>.+):(?P<line>\d+)\s*$", re.M
)
FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\s*$')
RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+?)_at_\d+$")
COMPILE_ID_RE = re.compile(r"^\s*\[?(?P<cid>\d+/\d+)\]?:\s*")
HINT_RE = re.compile(r"\(HINT: (?P<hint>.*)\)\s*$", re.S)
NUM_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")
THIRD_PARTY_MARKERS = ("site-packages", "dist-packages")
SECONDARY_MARK = "*** While handling this graph break, another graph break occurred: ***"
SKIP_MARK = "cannot properly resume from this graph break"
SKIP_STACK_MARK = "The graph break occurred in the following user code:"
EXC_LINE_RE = re.compile(r"^\S*(?:Unsupported|UserError): (.+)$", re.M)
LOG_PREFIX_RE = re.compile(r"^[VIWEDC]\d{4} [\d:.]+\s+\d+ \S+:\d+\](?: \[[^\]]*\])* ?", re.M)
LOOP_GB_TYPE = "graph break in loop"
BREAK_SECTION_KEYS = ("Explanation:", "Hint:", "Developer debug context:")


@dataclass(frozen=True)
class Attribution:
    """Where a stack points in the user's code."""

    user: Frame | None  # innermost frame under the project root
    package: str | None = None  # third-party package the break happened in
    package_frame: Frame | None = None  # innermost frame inside that package
    frames: tuple[Frame, ...] = ()  # the user's frames (and the package frame), innermost last


@dataclass(frozen=True)
class ParsedBreak:
    """One raw graph-break message, parsed (not yet deduplicated)."""

    gb_type: str
    gb_id: str | None
    reason: str
    explanation: str
    hints: tuple[str, ...]
    context: str
    loc_path: str
    loc_line: int
    stack: tuple[Frame, ...] = field(default=())
    secondary: tuple[str, ...] = ()  # gb_types of breaks torch hit while handling this one
    frame_skipped: bool = False  # torch gave up on the whole frame (it runs eagerly)


# --------------------------------------------------------------------------- frames


def strip_resume(name: str) -> str:
    """``torch_dynamo_resume_in_forward_at_11`` -> ``forward``."""
    m = RESUME_RE.match(name)
    return m.group("fn") if m else name


def parse_frames(lines: Iterable[str]) -> tuple[Frame, ...]:
    """``File "...", line N, in fn`` lines -> frames (innermost last)."""
    out: list[Frame] = []
    for ln in lines:
        m = FRAME_RE.match(ln)
        if m:
            out.append(Frame(m.group("path"), int(m.group("line")), strip_resume(m.group("fn"))))
    return tuple(out)


def _norm(path: str) -> str:
    return os.path.normcase(os.path.realpath(path)) if path and not path.startswith("<") else path


def _under(path: str, root: str) -> bool:
    if not root or not path or path.startswith("<"):
        return False
    p, r = _norm(path), _norm(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # compilelint/


def frame_kind(path: str, root: str, torch_dirs: Sequence[str] = ()) -> str:
    """``user`` | ``third-party`` | ``torch`` | ``other`` for a frame's file."""
    if not path or path.startswith("<"):
        return "other"
    if any(_under(path, d) for d in torch_dirs):
        return "torch"
    parts = re.split(r"[\\/]", path)
    if any(m in parts for m in THIRD_PARTY_MARKERS):
        idx = max(i for i, p in enumerate(parts) if p in THIRD_PARTY_MARKERS)
        return "torch" if idx + 1 < len(parts) and parts[idx + 1] == "torch" else "third-party"
    if _under(path, _OWN_DIR):
        return "other"
    if _under(path, root):
        return "user"
    if library_dir(path, root) is not None:
        return "third-party"
    return "other"


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple[str, ...]:
    """The folders on ``sys.path`` that hold installed code other than the standard library:
    besides site-packages, a ``pip install --target`` folder or a checkout on PYTHONPATH."""
    import sys
    import sysconfig

    std = {
        os.path.realpath(p) for k in ("stdlib", "platstdlib") if (p := sysconfig.get_paths().get(k))
    }
    out = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real in std or any(_under(real, d) for d in std) or real == os.sep:
            continue
        out.append(real)
    return tuple(sorted(set(out), key=len, reverse=True))


def library_dir(path: str, root: str, dirs: Sequence[str] | None = None) -> str | None:
    """The ``sys.path`` folder a file outside the project was imported from (None: not one;
    a folder that holds the project itself, such as its parent on PYTHONPATH, does not count)."""
    real = os.path.realpath(path)
    root_real = os.path.realpath(root)
    for d in _library_dirs() if dirs is None else dirs:
        if _under(root_real, d) or not _under(real, d):
            continue
        if real == d:
            continue
        return d
    return None


def package_of(path: str, root: str | None = None) -> str | None:
    parts = re.split(r"[\\/]", path)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in THIRD_PARTY_MARKERS and i + 1 < len(parts):
            name = parts[i + 1]
            return name[:-3] if name.endswith(".py") else name
    d = library_dir(path, root or os.getcwd())
    if d is not None:
        rest = os.path.relpath(os.path.realpath(path), d).split(os.sep)
        name = rest[0]
        return name[:-3] if name.endswith(".py") else name
    return None


def attribute(stack: Sequence[Frame], root: str, torch_dirs: Sequence[str] = ()) -> Attribution:
    """Innermost user frame; a break inside a third-party package names the package too."""
    kinds = [frame_kind(f.path, root, torch_dirs) for f in stack]
    user_idx = [i for i, k in enumerate(kinds) if k == "user"]
    user = stack[user_idx[-1]] if user_idx else None
    package = package_frame = None
    last_user = user_idx[-1] if user_idx else -1
    for i in range(len(stack) - 1, last_user, -1):
        if kinds[i] == "third-party":
            package_frame = stack[i]
            package = package_of(stack[i].path, root)
            break
    frames = [stack[i] for i in user_idx]
    if package_frame is not None:
        frames.append(package_frame)
    return Attribution(
        user=user, package=package, package_frame=package_frame, frames=tuple(frames)
    )


# --------------------------------------------------------------------------- breaks


def _block(text: str, start: str, stops: Sequence[str]) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    i += len(start)
    j = min((k for k in (text.find(s, i) for s in stops) if k >= 0), default=len(text))
    return text[i:j].strip()


DATA_DEPENDENT_GUARD = "Could not guard on data-dependent expression"
DATA_DEPENDENT_GUARD_RE = re.compile(
    r"Could not (?:guard on|extract specialized integer from) data-dependent expression [^\n(]*"
)


def match_gb_type(lines: Iterable[str], registry: Registry) -> str | None:
    """The first line that is exactly a registry gb_type (case-insensitive)."""
    for ln in lines:
        s = ln.strip().rstrip(":").strip()
        if s and registry.id_for(s):
            return s
    return None


_PARSED: dict[tuple[str, int], tuple[Registry, ParsedBreak]] = {}


def parse_break_message(msg: str, registry: Registry) -> ParsedBreak:
    """Parse one ``dynamo_graph_break_reason`` payload / graph_breaks log message (memoised:
    a long run's trace repeats the same messages thousands of times)."""
    hit = _PARSED.get((msg, id(registry)))
    if hit is not None and hit[0] is registry:
        return hit[1]
    out = _parse_break_message(msg, registry)
    if len(_PARSED) >= 4096:
        _PARSED.clear()
    _PARSED[(msg, id(registry))] = (registry, out)
    return out


def _parse_break_message(msg: str, registry: Registry) -> ParsedBreak:
    m = LOC_RE.search(msg)
    loc_path, loc_line = (m.group("path"), int(m.group("line"))) if m else ("", 0)
    full = msg
    msg, _, rest = msg.partition(SECONDARY_MARK)
    secondary: list[str] = []
    for part in rest.split(SECONDARY_MARK) if rest else []:
        part = part.split("User code traceback:", 1)[0]
        sec_lines = [ln.strip() for ln in part.splitlines() if ln.strip() and "***" not in ln]
        sec = match_gb_type(sec_lines[:3], registry)
        link2 = GB_LINK_RE.search(part)
        if sec is None and link2 and registry.get(f"GB{link2.group(1)}"):
            sec = registry.entries[f"GB{link2.group(1)}"].gb_type
        if sec:
            secondary.append(sec)
    reason_block = _block(msg, "Graph Break Reason:", [*BREAK_SECTION_KEYS, "For more details"])
    skip_form = m is None and SKIP_MARK in msg
    if skip_form:  # convert_frame.py: "Graph break: torch.compile cannot properly resume ..."
        exc_m = EXC_LINE_RE.search(msg)
        reason_block = exc_m.group(1) if exc_m else ""
    elif not reason_block and m is None:
        reason_block = msg.strip()
    reason_lines = [ln for ln in reason_block.splitlines() if ln.strip()]
    explanation = _block(msg, "Explanation:", ["Hint:", "Developer debug context:", "For more"])
    hints = tuple(  # torch repeats some hints (once per cause): keep each once, in order
        dict.fromkeys(
            h.strip()
            for h in re.findall(r"^\s*Hint: (.*(?:\n(?!\s*(?:Hint:|Developer|$)).*)*)", msg, re.M)
        )
    )
    context = _block(msg, "Developer debug context:", ["\n\n", "For more details"])
    link = GB_LINK_RE.search(msg)
    gb_id = f"GB{link.group(1)}" if link else None
    entry = registry.get(gb_id)
    gb_type = match_gb_type(reason_lines, registry)
    if gb_type is None and entry is not None:
        gb_type = entry.gb_type
    if gb_type is None:
        gb_type = legacy_gb_type(reason_block or msg)
    if gb_type is None:
        dd = DATA_DEPENDENT_GUARD_RE.search(reason_block or msg)
        if dd is not None:
            # a decision on an unbacked symbol (a size or number from `.tolist()`, a mask)
            # that torch turned into a break: its message has no gb_type line, and its last
            # line is a link to the export docs
            gb_type = DATA_DEPENDENT_GUARD
            if not explanation:
                explanation = dd.group(0)
    if gb_type is None:
        gb_type = reason_lines[-1].strip() if reason_lines else "unknown"
    if gb_id is None:
        gb_id = registry.id_for(gb_type)
        entry = registry.get(gb_id)
    if not explanation and entry is not None:
        explanation = entry.explanation
    if not hints and entry is not None:
        hints = entry.hints
    tb_mark = next(
        (k for k in ("User code traceback:", SKIP_STACK_MARK, "from user code:") if k in full),
        "User code traceback:",
    )
    tb = full.split(tb_mark, 1)[1] if tb_mark in full else ""
    tb = re.split(r"^(?:Traceback \(most recent call last\):|NoneType: None)", tb, flags=re.M)[0]
    stack = parse_frames(tb.splitlines())
    if not loc_path and stack:
        loc_path, loc_line = stack[-1].path, stack[-1].line
    reason = reason_lines[0].strip() if reason_lines else gb_type
    return ParsedBreak(
        gb_type=gb_type,
        gb_id=gb_id,
        reason=reason,
        explanation=explanation,
        hints=hints,
        context=context,
        loc_path=loc_path,
        loc_line=loc_line,
        stack=stack,
        secondary=tuple(secondary),
        frame_skipped=skip_form or "falling back to eager" in reason_block or bool(secondary),
    )


def parse_graph_breaks_log(text: str, registry: Registry) -> list[ParsedBreak]:
    """Breaks in ``TORCH_LOGS=graph_breaks`` output (stderr), full and "suppressed" records.

    The fallback where the structured trace is unavailable, and the oracle the tests compare
    against: deduplicated by (gb_type, file, line) it is what torch itself reports.
    """
    kept = [ln for ln in text.splitlines() if "[__graph_breaks]" in ln] or text.splitlines()
    clean = LOG_PREFIX_RE.sub("", "\n".join(kept))
    starts = [
        mm.start()
        for mm in re.finditer(
            r"^Graph break (?:\(user stack suppressed[^)]*\) )?in user code at |^Graph break: ",
            clean,
            re.M,
        )
    ]
    chunks = [clean[a:b] for a, b in zip(starts, [*starts[1:], len(clean)])]
    return [parse_break_message(c, registry) for c in chunks]


def dedupe_breaks(
    parsed: Iterable[ParsedBreak], root: str, torch_dirs: Sequence[str] = ()
) -> list[ObservedBreak]:
    """Deduplicate by (gb_type, file, line) as torch's log does; keep the count and order."""
    groups: dict[tuple[str, str, int], list[ParsedBreak]] = {}
    for p in parsed:
        groups.setdefault((p.gb_type, p.loc_path, p.loc_line), []).append(p)
    loop_locs = {
        (p.loc_path, p.loc_line)
        for ps in groups.values()
        for p in ps
        if LOOP_GB_TYPE in {t.lower() for t in (p.gb_type, *p.secondary)}
    }
    out: list[ObservedBreak] = []
    for (_gb, loc_path, loc_line), ps in groups.items():
        first = max(ps, key=lambda p: len(p.stack))
        att = attribute(first.stack, root, torch_dirs)
        user = att.user
        if user is None and frame_kind(loc_path, root, torch_dirs) == "user":
            user = Frame(loc_path, loc_line, first.stack[-1].function if first.stack else "")
        out.append(
            ObservedBreak(
                gb_type=first.gb_type,
                gb_id=first.gb_id,
                reason=first.reason,
                explanation=first.explanation,
                hints=first.hints,
                context=first.context,
                loc_path=loc_path,
                loc_line=loc_line,
                path=user.path if user else None,
                line=user.line if user else None,
                function=user.function if user else "",
                frames=att.frames or ((user,) if user else ()),
                package=att.package,
                count=len(ps),
                in_loop=(loc_path, loc_line) in loop_locs,
                frame_skipped=any(p.frame_skipped for p in ps),
            )
        )
    return out


# --------------------------------------------------------------------------- recompiles


def split_recompile_payload(payload: str | list[str] | None) -> list[str]:
    """A ``recompile_reasons`` payload: one plain string, or a JSON list of strings."""
    if payload is None:
        return []
    if isinstance(payload, list):
        return [str(p) for p in payload]
    text = payload.strip()
    if text.startswith("["):
        try:
            data = json.loads(text)
        except ValueError:
            return [payload]
        if isinstance(data, list):
            return [str(p) for p in data]
    return [payload] if text else []


@dataclass(frozen=True)
class ParsedReason:
    compile_id: str
    guard: str
    hint: str | None
    frames: tuple[Frame, ...]
    text: str


def parse_recompile_reason(text: str) -> ParsedReason:
    head, _, rest = text.partition("User stack trace:")
    first = head.strip().splitlines()[0] if head.strip() else ""
    cid_m = COMPILE_ID_RE.match(first)
    compile_id = cid_m.group("cid") if cid_m else ""
    body = first[cid_m.end() :] if cid_m else first
    hint_m = HINT_RE.search(head.strip())
    hint = hint_m.group("hint").strip() if hint_m else None
    guard = body.split("  # ", 1)[0].split(" # ", 1)[0].strip()
    return ParsedReason(
        compile_id=compile_id,
        guard=guard,
        hint=hint,
        frames=parse_frames(rest.splitlines()),
        text=text.strip(),
    )


def guard_key(guard: str) -> str:
    """A guard with its literal numbers masked, so ``n == 2`` and ``n == 3`` group together."""
    return NUM_RE.sub("N", guard)


def group_recompiles(
    events: Iterable[Mapping[str, Any]],
    limit_hits: Iterable[Mapping[str, Any]],
    root: str,
    torch_dirs: Sequence[str] = (),
) -> list[ObservedRecompile]:
    """One record per (recompiled function, guard line, guard shape), counting events.

    Each event is ``{"reasons": [...], "function": {"name", "path", "line"}}``: one recompile,
    with one reason per failed cache entry, newest first. The newest reason is the one that
    triggered this recompile; older entries failed on guards already reported.
    """
    hits = [dict(h) for h in limit_hits]
    groups: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for ev in events:
        reasons = split_recompile_payload(ev.get("reasons"))
        if not reasons:
            continue
        # The newest reason that is a real guard failure; a dropped cache entry ("Cache line
        # invalidated because ... got deallocated") only when nothing else failed.
        trigger = next((r for r in reasons if "Cache line invalidated" not in r), reasons[0])
        pr = parse_recompile_reason(trigger)
        fn = dict(ev.get("function") or {})
        att = attribute(pr.frames, root, torch_dirs)
        user = att.user or (pr.frames[-1] if pr.frames else None) or commented_frame(pr, fn)
        name = strip_resume(str(fn.get("name") or (user.function if user else "")))
        key = (
            name,
            user.path if user else "",
            user.line if user else 0,
            guard_key(pr.guard),
        )
        g = groups.get(key)
        if g is None:
            groups[key] = {
                "function": name,
                "path": user.path if user else (fn.get("path") or None),
                "line": user.line if user else fn.get("line"),
                "guard": pr.guard,
                "reason": pr.text,
                "hint": pr.hint,
                "count": 1,
                "code_path": fn.get("path"),
                "code_line": fn.get("line"),
                "frames": att.frames or ((user,) if user else ()),
                "code_name": str(fn.get("name") or ""),
            }
        else:
            g["count"] += 1
    out: list[ObservedRecompile] = []
    for g in groups.values():
        hit = any(_limit_hit_matches(h, g) for h in hits)
        out.append(ObservedRecompile(hit_limit=hit, **g))
    return out


# the location torch writes after a guard's code: `  # <path, shortened to its tail>:<line> in
# <function>`, then the library frames the guard was installed in, in parentheses (required:
# a guard installed at the frame's entry, such as `x is x0`, names the frame's first line of
# code without them, and belongs on the `def` line like other input guards)
GUARD_AT_RE = re.compile(
    r"  # (?P<path>[^\s#]+\.py):(?P<line>\d+) in (?P<func>[\w<>.]+) \(\S+\.py:\d+ in "
)


def commented_frame(pr: ParsedReason, fn: Mapping[str, Any]) -> Frame | None:
    """The user's line of a guard that comes without a user stack: one installed inside a
    library call the user's line made (``F.dropout(x, p=attn_drop)`` once the float is
    symbolic: ``attn_drop == 0.15  # attn = F.dropout(...)  # mp/adp/m.py:20 in forward
    (nn/functional.py:1491 in dropout)``). torch shortens the path to its tail; the line is
    taken when the recompiled function's file ends with that tail and the comment names the
    library frames, else None (the caller falls back to the function's own line: a guard on
    the frame's inputs, `x is x0`, names its first line of code without library frames)."""
    code_path = str(fn.get("path") or "")
    first = pr.text.splitlines()[0] if pr.text else ""
    m = GUARD_AT_RE.search(first)
    if m is None or not code_path or not code_path.endswith(m.group("path")):
        return None
    return Frame(path=code_path, line=int(m.group("line")), function=m.group("func"))


LIMIT_FN_RE = re.compile(r"function: '(?P<name>[^']+)' \((?P<path>.+):(?P<line>\d+)\)")


def _limit_hit_matches(hit: Mapping[str, Any], g: Mapping[str, Any]) -> bool:
    m = LIMIT_FN_RE.search(str(hit.get("message", "")))
    if not m:
        return False
    same_code = g.get("code_path") and _norm(m.group("path")) == _norm(str(g["code_path"]))
    return strip_resume(m.group("name")) == g["function"] and bool(
        same_code or not g.get("code_path")
    )


# --------------------------------------------------------------------------- JSON


def user_function_name(name: str) -> str:
    """``torch_dynamo_resume_in_forward_at_11`` (dynamo's code after a graph break) -> ``forward``."""
    if name.startswith("torch_dynamo_resume_in_"):
        return name.removeprefix("torch_dynamo_resume_in_").rsplit("_at_", 1)[0]
    return name


def frame_json(f: Frame) -> dict[str, Any]:
    return {"path": f.path, "line": f.line, "function": f.function}


def break_json(b: ObservedBreak, root: str = "") -> dict[str, Any]:
    return {
        "gb_type": b.gb_type,
        "gb_id": b.gb_id,
        "reason": b.reason,
        "explanation": b.explanation,
        "hints": list(b.hints),
        "path": relpath(b.path, root) if b.path else None,
        "line": b.line,
        "function": b.function,
        "torch_location": f"{b.loc_path}:{b.loc_line}",
        "package": b.package,
        "count": b.count,
        "in_loop": b.in_loop,
        "frame_skipped": b.frame_skipped,
        "frames": [frame_json(_rel_frame(f, root)) for f in b.frames],
    }


SIZE_GUARD_RE = re.compile(
    r"tensor '(?P<input>[^']+)' (?:size|stride) mismatch at index (?P<dim>\d+)"
)


def guard_input_dim(guard: str) -> tuple[str, int] | None:
    """``tensor 'x' size mismatch at index 0 ...`` -> ("x", 0)."""
    m = SIZE_GUARD_RE.search(guard)
    return (m.group("input"), int(m.group("dim"))) if m else None


def recompile_json(r: ObservedRecompile, root: str = "") -> dict[str, Any]:
    dim = guard_input_dim(r.guard)
    return {
        "input": dim[0] if dim else None,
        "dim": dim[1] if dim else None,
        "function": r.function,
        "path": relpath(r.path, root) if r.path else None,
        "line": r.line,
        "guard": r.guard,
        "guard_readable": r.readable or r.guard,
        "explanation": r.explanation,
        "every_call": r.every_call,
        "invalidated": r.invalidated,
        "reason": r.reason,
        "hint": r.hint,
        "count": r.count,
        "hit_limit": r.hit_limit,
    }


@functools.lru_cache(maxsize=1 << 16)
def relpath(path: str, root: str) -> str:
    """``path`` relative to ``root`` when under it (memoised: a trace of many ranks names the
    same few files thousands of times)."""
    if root and _under(path, root):
        return os.path.relpath(_norm(path), _norm(root)).replace(os.sep, "/")
    return path


def _rel_frame(f: Frame, root: str) -> Frame:
    return Frame(relpath(f.path, root), f.line, f.function)
