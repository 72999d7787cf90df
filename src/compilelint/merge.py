"""Merge static findings (predictions) with the dynamic stage's observations. Pure functions.

- An observed break on the line of a static finding (±1 line, or inside the finding's span)
  whose rule predicts the observed gb_type becomes one finding with stage ``"both"``.
- An observed break no static finding explains becomes a ``"dynamic"`` finding of the rule
  whose ``gb_types`` match, or of the catch-all ``CL002`` (these say which static rule to write
  next).
- Recompiles become ``CL003`` findings (``"both"`` where a recompiles-category rule predicted
  the line).
- A static finding the run did not confirm is marked "not observed" (its function ran without
  that break) or "not reached" (the sample inputs never ran it).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from compilelint.breakkinds import label_break
from compilelint.catalog import Catalog
from compilelint.dynamic.capture import guard_input_dim
from compilelint.model import Finding, Frame, ObservedBreak, ObservedRecompile, Rule, Severity
from compilelint.remedies import recipe_text

CATCH_ALL_BREAK = "CL002"
ITEM_GUARD_RE = re.compile(r"^(?P<x>.+)\.item\(\) == -?\d+$")  # a 0-d tensor's value guarded
RECOMPILE_RULE = "CL003"
COMPILE_FAILURE_RULE = "CL004"
LINE_SLACK = 1
NOT_OBSERVED = " (not observed: the dynamic run executed this function without this break)"
NOT_REACHED = " (not reached by the dynamic run's sample inputs)"
# With line coverage (the run's extra eager pass over the scanned files):
COV_NOT_REACHED = " (predicted, not reached by your inputs)"
COV_TRACED = " (reached, and torch traced it without a break: likely a false alarm)"
COV_EAGER = (
    " (reached, but torch ran this function eagerly, outside any compiled graph: the run can"
    " neither confirm nor refute it)"
)

# A library finding whose library function torch never traced under the spec's inputs.
LIB_NOT_TRACED = " (predicted; torch did not trace this library function with your inputs)"


def refuted(f: Finding) -> bool:
    """Whether the dynamic run contradicts a static prediction: torch executed (traced) the
    code that holds it and recorded no such break."""
    return f.observed is False and f.stage == "static"


_FINDING_FIELDS = {f.name for f in dataclasses.fields(Finding)}


class _Default(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, **values: Any) -> str:
    """``str.format_map`` that leaves unknown ``{placeholders}`` as they are."""
    try:
        return template.format_map(_Default(values))
    except (ValueError, IndexError):
        return template


def norm_path(path: str, root: str) -> str:
    p = path if os.path.isabs(path) else os.path.join(root, path)
    return os.path.normcase(os.path.realpath(p))


def display_path(path: str, root: str) -> str:
    full = norm_path(path, root)
    r = os.path.normcase(os.path.realpath(root))
    if full.startswith(r.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, r).replace(os.sep, "/")
    return path


@lru_cache(maxsize=256)
def _source_lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8") as fh:
            return tuple(fh.read().splitlines())
    except (OSError, UnicodeDecodeError):
        return ()


@lru_cache(maxsize=256)
def function_spans(path: str) -> tuple[tuple[int, int], ...]:
    """(first, last) line of every function in the file, innermost later."""
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ()
    spans = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    ]
    return tuple(sorted(spans))


def enclosing_span(path: str, line: int) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for a, b in function_spans(path):
        if a <= line <= b and (best is None or b - a <= best[1] - best[0]):
            best = (a, b)
    return best


def _replace(f: Finding, **changes: Any) -> Finding:
    return dataclasses.replace(f, **{k: v for k, v in changes.items() if k in _FINDING_FIELDS})


def _line_text(path: str, line: int) -> str:
    lines = _source_lines(path)
    return lines[line - 1].rstrip() if 0 < line <= len(lines) else ""


def _matches_line(f: Finding, line: int) -> bool:
    if f.line - LINE_SLACK <= line <= max(f.end_line, f.line) + LINE_SLACK:
        return True
    return False


def _same_inner(frame: Frame, frames: Sequence[Frame]) -> bool:
    """Whether an observed stack ends at ``frame`` (a followed library line)."""
    if not frames:
        return False
    last = frames[-1]
    return (
        os.path.realpath(last.path) == os.path.realpath(frame.path)
        and abs(last.line - frame.line) <= LINE_SLACK
    )


# The gb_type of a break a trace implies without saying why (``trace.api.implied_breaks``): it
# confirms any rule that predicts a graph break at its line.
UNKNOWN_BREAK = "Unknown graph break"


def _predicts(rule: Rule | None, gb_type: str, gb_id: str | None) -> bool:
    if rule is None:
        return False
    if gb_type.startswith(UNKNOWN_BREAK):
        return bool(rule.gb_types or rule.gb_ids)
    types = {t.strip().lower() for t in rule.gb_types}
    return gb_type.strip().lower() in types or bool(gb_id and gb_id in rule.gb_ids)


def break_fix(b: ObservedBreak, rule: Rule | None) -> str:
    """The fix text of an observed break reported under ``rule`` (the rule that describes its
    line, see :func:`compilelint.breakkinds.label_break`): the rule's own fix, else the manual
    recipe of its GB id (torch's hints where they help; never "file an issue")."""
    if rule is not None and rule.code != CATCH_ALL_BREAK and rule.fix_title:
        return rule.fix_title
    return recipe_text(b.gb_id, b.hints)


def recompile_fix(r: ObservedRecompile) -> str:
    dim = guard_input_dim(r.guard)
    if dim:
        name, d = dim
        return (
            f"Mark dim {d} of `{name}` dynamic: torch._dynamo.mark_dynamic({name}, {d}) before "
            "the call, or torch.compile(..., dynamic=True)"
        )
    hint = (r.hint or "").lower()
    if "integer attributes" in hint or "allow_unspec_int_on_nn_module" in hint:
        return (
            "Keep the counter in a tensor (a registered buffer), or set "
            "torch._dynamo.config.allow_unspec_int_on_nn_module = True"
        )
    item = ITEM_GUARD_RE.match(r.readable or "")
    if item:
        return (
            f"Keep `{item.group('x')}` a tensor where it is used, so that torch need not read "
            f"its value: index with `{item.group('x')}.view(1)` (or `index_select`/`gather`), "
            "select with `torch.where` instead of a Python `if`"
        )
    if "==" in r.guard and any(c.isdigit() for c in r.guard.split("==", 1)[1]):
        return (
            "Pass the changing Python scalar as a tensor, or compile with dynamic=True so it is "
            "treated as a symbolic value"
        )
    if r.hint:
        return r.hint
    return "Make the guarded value stable across calls, or mark it dynamic"


def _dynamic_finding(
    code: str,
    rule: Rule | None,
    default: tuple[str, Severity],
    *,
    path: str,
    npath: str,
    root: str,
    line: int,
    line_text: str,
    **fields: Any,
) -> Finding:
    """A finding of the dynamic stage alone at ``line`` of ``path`` (from its first column, one
    character wide): the rule's name and severity, or ``default`` (name, severity) without one."""
    col = _first_col(npath, line)
    return Finding(
        rule=code,
        name=rule.name if rule else default[0],
        path=display_path(path, root),
        line=line,
        col=col,
        end_line=line,
        end_col=col + 1,
        severity=rule.severity if rule else default[1],
        stage="dynamic",
        line_text=line_text,
        **fields,
    )


def compile_failure_finding(
    failure: dict[str, Any], catalog: Catalog, *, root: str
) -> Finding | None:
    """torch.compile raised on a call that runs eagerly: a finding at the user's line (the
    innermost frame under the project root), with the library frames and what to do."""
    frame = failure.get("frame") or {}
    frames = [f for f in failure.get("frames") or [] if isinstance(f, dict) and f.get("path")]
    if not frame.get("path") and frames:
        frame = frames[0]
    path = str(frame.get("path") or "")
    if not path:
        return None
    line = int(frame.get("line") or 1)
    npath = norm_path(path, root)
    rule = catalog.get(COMPILE_FAILURE_RULE)
    typ, msg = str(failure.get("type") or ""), str(failure.get("message") or "")
    head = msg.split(":", 1)[0]
    exc = msg if head.rsplit(".", 1)[-1] == typ else f"{typ}: {msg}"
    exc = re.sub(r"^(?:\w+\.)+(?=\w+Error\b|\w+Exception\b)", "", exc)
    where = ""
    lib = [f for f in frames if norm_path(str(f["path"]), root) != npath]
    if lib:
        last = lib[-1]
        where = f" inside {last['path']}:{last.get('line')} ({last.get('function')})"
    message = (
        fill(rule.message, exception=exc, where=where, call=failure.get("call") or 1)
        if rule
        else f"torch.compile fails on this call{where}: {exc}"
    )
    cfg = list(failure.get("config") or [])
    fix = (
        "Keep this call out of the compiled region: wrap the function it calls in "
        "`torch.compiler.disable` (a graph break per call), or move it out of `forward`; if the "
        "library sets itself up lazily, one eager warm-up call before compiling can avoid it"
    )
    if cfg:
        fix += f"; the error names {', '.join(f'`{c}`' for c in cfg)}"
    return _dynamic_finding(
        COMPILE_FAILURE_RULE,
        rule,
        ("compile-failure", "error"),
        path=path,
        npath=npath,
        root=root,
        line=line,
        line_text=_line_text(npath, line),
        message=message,
        fix=fix,
        function=str(frame.get("function") or ""),
        frames=tuple(
            Frame(
                display_path(str(f["path"]), root),
                int(f.get("line") or 0),
                str(f.get("function") or ""),
            )
            for f in frames
        ),
        observed=True,
    )


def merge_findings(
    static: Sequence[Finding],
    breaks: Iterable[ObservedBreak],
    recompiles: Iterable[ObservedRecompile],
    catalog: Catalog,
    *,
    root: str,
    reached: dict[str, frozenset[int]] | None = None,
    ran: bool = True,
    covered: dict[str, frozenset[int]] | None = None,
) -> list[Finding]:
    """One list of findings: static ones confirmed or not, plus what only the run saw.

    ``reached``: the lines torch traced into graphs; ``covered``: the lines the run's eager
    coverage pass executed (``None``: no coverage, the older "not observed"/"not reached"
    wording is used). With coverage every finding gets ``reached``, and an unconfirmed one says
    whether the inputs never ran it, torch traced it without the break, or torch ran its
    function eagerly."""
    out: list[Finding | None] = list(static)
    norm_static = [norm_path(f.path, root) for f in static]
    confirmed: set[int] = set()
    extra: list[Finding] = []
    observed_lines: dict[str, set[int]] = {}
    reached_norm = {norm_path(p, root): ls for p, ls in (reached or {}).items()}
    covered_norm = (
        {norm_path(p, root): ls for p, ls in covered.items()} if covered is not None else None
    )

    for b in breaks:
        path = b.path or b.loc_path
        line = b.line if b.line is not None else b.loc_line
        if not path:
            continue
        npath = norm_path(path, root)
        observed_lines.setdefault(npath, set()).add(line)
        text = _line_text(npath, line)
        # the rule for what broke: torch's GB id and the code on the line (never a rule about
        # something the line does not do)
        code = label_break(catalog, b.gb_type, b.gb_id, text, b.hints)
        hit = False
        for i, f in enumerate(static):
            if norm_static[i] != npath or not _matches_line(f, line):
                continue
            if not (
                _predicts(catalog.get(f.rule), b.gb_type, b.gb_id)
                or (f.rule == code and f.line == line)
            ):
                continue
            if f.package and f.frames and not _same_inner(f.frames[-1], b.frames):
                continue  # a library line reached from this call, but not the one that broke
            cur = out[i]
            assert cur is not None
            out[i] = _replace(
                cur,
                stage="both",
                gb_type=b.gb_type,
                gb_id=b.gb_id,
                hints=b.hints,
                count=b.count,
                frames=_rel_frames(b.frames, root),
                observed=True,
            )
            confirmed.add(i)
            hit = True
        if hit:
            continue
        rule = catalog.get(code)
        where = f" in package {b.package}" if b.package else ""
        msg = (
            fill(
                rule.message,
                gb_type=b.gb_type,
                gb_id=b.gb_id or "no id",
                reason=b.reason,
                package=b.package or "",
                count=b.count,
            )
            if rule and code == CATCH_ALL_BREAK
            else f"Observed graph break ({b.gb_type}{', ' + b.gb_id if b.gb_id else ''}){where}"
        )
        if b.in_loop or b.frame_skipped:
            msg += ": torch skipped the whole frame, which now runs eagerly"
        extra.append(
            _dynamic_finding(
                code,
                rule,
                ("observed-graph-break", "warning"),
                path=path,
                npath=npath,
                root=root,
                line=line,
                line_text=text,
                message=msg,
                fix=break_fix(b, rule),
                function=b.function,
                gb_type=b.gb_type,
                gb_id=b.gb_id,
                hints=b.hints,
                count=b.count,
                frames=_rel_frames(b.frames, root),
            )
        )

    rec_rule = catalog.get(RECOMPILE_RULE)
    for r in recompiles:
        rpath = r.path or r.code_path
        line = r.line or r.code_line or 0
        if not rpath:
            continue
        npath = norm_path(rpath, root)
        matched = False
        guard = r.readable or r.guard
        for i, f in enumerate(static):
            rule = catalog.get(f.rule)
            if (
                norm_static[i] == npath
                and rule is not None
                and _predicts_recompile(rule)
                and (_matches_line(f, line) or _same_state(f, guard, npath, line))
            ):
                cur = out[i]
                assert cur is not None
                why = f" (observed: guard `{guard}` failed {r.count} time(s))"
                out[i] = _replace(
                    cur,
                    stage="both",
                    count=r.count,
                    observed=True,
                    message=cur.message if why in cur.message else cur.message + why,
                )
                confirmed.add(i)
                matched = True
        if matched:
            continue
        limit = " and hit the recompile limit: torch now runs it eagerly" if r.hit_limit else ""
        base = (
            fill(
                rec_rule.message,
                function=r.function,
                count=r.count,
                guard=guard,
                limit=limit,
            )
            if rec_rule
            else f"`{r.function}` recompiled {r.count} time(s): guard `{guard}` failed{limit}"
        )
        if r.invalidated:
            base = (
                f"`{r.function}` recompiled {r.count} time(s): {guard} (not a failed guard){limit}"
            )
        if r.explanation:
            base += f": {r.explanation}"
        extra.append(
            _dynamic_finding(
                RECOMPILE_RULE,
                rec_rule,
                ("observed-recompile", "warning"),
                path=rpath,
                npath=npath,
                root=root,
                line=line,
                line_text=_line_text(npath, line),
                message=base,
                fix=recompile_fix(r),
                function=r.function,
                hints=(r.hint,) if r.hint else (),
                count=r.count,
                frames=_rel_frames(r.frames, root),
            )
        )

    if ran:
        for i, f in enumerate(static):
            if i in confirmed:
                continue
            cur = out[i]
            assert cur is not None
            rule_of = catalog.get(f.rule)
            if rule_of is None or rule_of.verify == "none" or rule_of.detector != "static":
                continue  # advice and tool findings are not something a run can observe
            npath = norm_static[i]
            if f.package and f.frames:
                # In a library, reached from the user's call: what counts is whether torch
                # traced the library function that holds the predicted line, not the caller.
                inner = f.frames[-1]
                ipath = norm_path(inner.path, root)
                ispan = enclosing_span(ipath, inner.line)
                ilines = set(reached_norm.get(ipath, ())) | observed_lines.get(ipath, set())
                if ispan is not None:
                    traced = any(ispan[0] <= ln <= ispan[1] for ln in ilines)
                else:
                    traced = inner.line in ilines
                if traced:
                    out[i] = _replace(
                        cur, message=cur.message + COV_TRACED, observed=False, reached=True
                    )
                elif covered_norm is not None:
                    out[i] = _replace(
                        cur, message=cur.message + LIB_NOT_TRACED, observed=None, reached=False
                    )
                else:
                    out[i] = _replace(cur, message=cur.message + NOT_REACHED, observed=None)
                continue
            span = enclosing_span(npath, f.line)
            lines = set(reached_norm.get(npath, ())) | observed_lines.get(npath, set())
            if span is not None:
                was_reached = any(span[0] <= ln <= span[1] for ln in lines)
            else:
                was_reached = bool(lines)
            if covered_norm is not None:
                ran_lines = covered_norm.get(npath, frozenset())
                if not any(ln in ran_lines for ln in range(f.line, max(f.end_line, f.line) + 1)):
                    out[i] = _replace(
                        cur, message=cur.message + COV_NOT_REACHED, observed=None, reached=False
                    )
                elif was_reached:
                    out[i] = _replace(
                        cur, message=cur.message + COV_TRACED, observed=False, reached=True
                    )
                else:
                    out[i] = _replace(
                        cur, message=cur.message + COV_EAGER, observed=None, reached=True
                    )
                continue
            if was_reached:
                out[i] = _replace(cur, message=cur.message + NOT_OBSERVED, observed=False)
            else:
                out[i] = _replace(cur, message=cur.message + NOT_REACHED, observed=None)
    result = [f for f in out if f is not None] + extra
    if covered_norm is not None:  # what the run observed or confirmed ran
        result = [
            _replace(f, reached=True) if f.reached is None and f.stage != "static" else f
            for f in result
        ]
    return result


def _predicts_recompile(rule: Rule) -> bool:
    return (
        rule.category == "recompiles" or "recompile" in rule.observes or rule.verify == "recompiles"
    )


_SELF_ATTR_RE = re.compile(r"\bself\.\w+(?:\.\w+)*")


def _same_state(f: Finding, guard: str, npath: str, line: int) -> bool:
    """A static finding about ``self.<attr>`` and a failed guard on the same ``self.<attr>``
    in the same function: the same recompile, whichever line installed the guard."""
    attrs = set(_SELF_ATTR_RE.findall(guard))
    if not attrs or not any(a in (f.line_text or f.message) for a in attrs):
        return False
    span = enclosing_span(npath, f.line)
    return span is not None and span[0] <= line <= span[1]


def _first_col(npath: str, line: int) -> int:
    """1-based column of the first non-blank character of a source line (1 if unknown)."""
    text = _line_text(npath, line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1


def _rel_frames(frames: Sequence[Frame], root: str) -> tuple[Frame, ...]:
    return tuple(Frame(display_path(f.path, root), f.line, f.function) for f in frames)
