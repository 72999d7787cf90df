"""Helpers shared by the reporters: order, labels, summary lines. Pure functions.

Reporter options (the ``options`` dict every ``render`` takes; all optional):

- ``color``: bool, ANSI colour (text only).
- ``cwd``: the folder relative finding paths are relative to (default: the current folder).
- ``srcroot``: the folder SARIF URIs and blob links are relative to (the git work tree's top
  when there is one; default ``cwd``).
- ``env``: the environment to read ``GITHUB_*`` variables from (default: none, so output does
  not depend on where it is rendered unless the caller passes ``os.environ``).
- ``changes``: a :class:`compilelint.vcs.Changes`; the github reporter spends its annotation
  budget on changed lines first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from compilelint.model import SEVERITY_ORDER, Finding, Report
from compilelint.trace.ranges import expand_ranges, rank_order, rank_ranges

STAGE_LABEL = {"static": "predicted", "dynamic": "observed", "both": "confirmed"}


def stage_label(f: Finding) -> str:
    return STAGE_LABEL.get(f.stage, f.stage)


def priority_key(f: Finding) -> tuple[Any, ...]:
    """Highest-ranked first: the dynamic stage's rank when there is one, then severity, then
    observed before predicted, then location."""
    return (
        f.rank if f.rank > 0 else 1 << 30,
        -SEVERITY_ORDER.get(f.severity, 0),
        0 if f.stage in ("both", "dynamic") else 1,
        f.path,
        f.line,
        f.col,
        f.rule,
    )


def ranked(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=priority_key)


def plural(n: int, word: str) -> str:
    if word == "info":
        return f"{n} info"
    return f"{n} {word}{'' if n == 1 else 's'}"


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    fs = list(findings)
    return {k: sum(1 for f in fs if f.severity == k) for k in ("error", "warning", "info")}


def summary_line(report: Report, *, seconds: bool = True) -> str:
    """``Found 7 findings (2 errors, 4 warnings, 1 info) in 1 file (69 lines) in 0.02s.``"""
    n = len(report.findings)
    counts = severity_counts(report.findings)
    parts = [plural(v, k) for k, v in counts.items() if v]
    head = f"Found {plural(n, 'finding')} ({', '.join(parts)})" if n else "No findings"
    s = report.summary
    text = f"{head} in {plural(s.files, 'file')} ({plural(s.lines, 'line')})"
    if seconds:
        text += f" in {timing_text(report)}"
    return text + "."


def timing_text(report: Report) -> str:
    """``0.05s`` for a static check; with a dynamic run, the whole time and its parts:
    ``6.12s (static 0.05s; dynamic 6.07s, of which importing torch 2.10s)``."""
    static = report.summary.seconds
    dyn = dynamic_block(report)
    if dyn is None or not dyn.get("seconds"):
        return f"{static:.2f}s"
    d = float(dyn["seconds"])
    imp = dyn.get("import_seconds")
    of = f", of which importing torch {float(imp):.2f}s" if imp else ""
    return f"{static + d:.2f}s (static {static:.2f}s; dynamic {d:.2f}s{of})"


def dynamic_block(report: Report) -> dict[str, Any] | None:
    dyn = report.extra.get("dynamic")
    return dyn if isinstance(dyn, dict) else None


def dynamic_line(report: Report) -> str | None:
    """``torch 2.13.0 (cpu): 5 graphs, 2 graph breaks, 5 recompiles`` when the dynamic stage ran."""
    dyn = dynamic_block(report)
    if dyn is None:
        return None
    if dyn.get("error"):
        err = dyn["error"]
        return f"dynamic stage failed at {err.get('step')}: {err.get('message')}"
    how = [str(dyn["device"])] if dyn.get("device") else []
    if dyn.get("mode") in ("eval", "train"):
        from compilelint.dynamic.spec import mode_text  # only with a dynamic run

        how.append(mode_text(dyn.get("mode"), dyn.get("mode_source")))
    where = f" ({', '.join(how)})" if how else ""
    parts = [
        plural(int(dyn.get("graph_count") or 0), "graph"),
        plural(int(dyn.get("graph_break_count") or 0), "graph break"),
        plural(int(dyn.get("recompile_count") or 0), "recompile"),
    ]
    if dyn.get("source") == "trace":
        n = len([r for r in dyn.get("ranks") or {} if r != "spec"])
        where = f" (trace of {plural(n, 'rank')})"
    line = f"torch {dyn.get('torch')}{where}: {', '.join(parts)}"
    if dyn.get("hit_recompile_limit"):
        line += " (hit the recompile limit: torch fell back to eager)"
    if dyn.get("inputs_moved"):
        line += f"; {dyn['inputs_moved']}"
    refuted = int(dyn.get("refuted") or 0)
    if refuted:
        line += (
            f"; {plural(refuted, 'static prediction')} that torch traced without a break "
            "left out (--show-refuted)"
        )
    divergences = len(dyn.get("divergence") or [])
    if divergences:
        line += f"; the ranks diverge in {plural(divergences, 'place')} (CL005)"
    return line


def prediction_lines(report: Report) -> list[str]:
    """``predicted: 2 graphs, 1 break, 3 recompiles over the spec's 4 calls``, then each predicted
    recompile, and, when the dynamic stage ran too, where torch did something else."""
    pred = report.extra.get("prediction")
    if not isinstance(pred, dict):
        return []
    if not pred.get("function"):
        return [f"prediction: {'; '.join(pred.get('notes') or ['no entry found'])}"]
    lines = [
        f"predicted for {pred['entry']}: {plural(int(pred['graph_count']), 'graph')}, "
        f"{plural(int(pred['graph_breaks']), 'break')}, "
        f"{plural(int(pred['recompiles']), 'recompile')} over the spec's "
        f"{plural(int(pred['calls']), 'call')}"
        + (" (recompile limit reached)" if pred.get("hit_recompile_limit") else "")
    ]
    for r in pred.get("recompile_sites") or []:
        lines.append(
            f"  recompile x{r['count']} at {r['path']}:{r['line']}: guard `{r['guard']}` "
            f"({r['reason']}; fix: {r['fix']})"
        )
    for n in pred.get("notes") or []:
        lines.append(f"  note: {n}")
    dyn = dynamic_block(report)
    if dyn is not None and not dyn.get("error") and dyn.get("source") != "trace":
        diffs = []
        for key, dkey, word in (
            ("graph_count", "graph_count", "graph"),
            ("graph_breaks", "graph_break_count", "break"),
            ("recompiles", "recompile_count", "recompile"),
        ):
            a, b = int(pred.get(key) or 0), int(dyn.get(dkey) or 0)
            if a != b:
                diffs.append(f"predicted {plural(a, word)}, torch {b}")
        lines.append(
            "prediction differs from the run: " + "; ".join(diffs)
            if diffs
            else "prediction matches the run"
        )
    return lines


def rank_rows(report: Report) -> list[tuple[str, ...]]:
    """Per-rank counts of a ``--trace`` run, ranks with equal counts and the same side of every
    divergence in one row (a 1,000-rank job of one odd rank is two rows): (ranks, graphs,
    breaks, recompiles, collectives, compile s, what differs from the largest group)."""
    dyn = dynamic_block(report)
    if not dyn or dyn.get("source") != "trace":
        return []
    ranks = {k: r for k, r in (dyn.get("ranks") or {}).items() if isinstance(r, dict)}
    member: dict[str, int] = {}
    diffs: dict[int, str] = {}
    for i, g in enumerate(dyn.get("rank_groups") or []):
        for label in expand_ranges(str(g.get("ranks") or "")):
            member[label] = i
        diffs[i] = "; ".join(g.get("differences") or []) or ("" if g.get("same") else "?")
    rows: dict[tuple[Any, ...], list[str]] = {}
    for label in rank_order(ranks):
        r = ranks[label]
        key = (
            member.get(label, -1 if label != "spec" else -2),
            str(r.get("graphs", 0)),
            str(r.get("graph_breaks", 0)),
            str(r.get("recompiles", 0)) + (" (limit hit)" if r.get("hit_recompile_limit") else ""),
            str(r.get("collectives", 0)),
        )
        rows.setdefault(key, []).append(label)
    out: list[tuple[str, ...]] = []
    for key, labels in rows.items():
        secs = [float(ranks[x].get("compile_seconds") or 0.0) for x in labels]
        lo, hi = min(secs), max(secs)
        sec = f"{lo:.1f}" if round(lo, 1) == round(hi, 1) else f"{lo:.1f}-{hi:.1f}"
        out.append((rank_ranges(labels), *key[1:], sec, diffs.get(key[0], "")))
    return out


def rank_group_lines(report: Report, *, groups: bool = True) -> list[str]:
    """``ranks 0-511, 513-1023: same`` / ``rank 512: <what differs>`` for a multi-rank trace
    (``groups=False``: only the divergences no finding shows, for a report with a rank table)."""
    dyn = dynamic_block(report)
    if not dyn or dyn.get("source") != "trace":
        return []
    rank_groups = [g for g in dyn.get("rank_groups") or [] if isinstance(g, dict)]
    out = []
    biggest = max((int(g.get("count") or 0) for g in rank_groups[1:]), default=0)
    for g in rank_groups if groups else []:
        n = int(g.get("count") or 0)
        word = "rank" if n == 1 else "ranks"
        if g.get("same"):
            out.append(f"{word} {g.get('ranks')}: " + ("same" if n > biggest else "the reference"))
        else:
            out.append(f"{word} {g.get('ranks')}: " + "; ".join(g.get("differences") or []))
    unplaced = [d for d in dyn.get("divergence") or [] if isinstance(d, dict) and not d.get("line")]
    for d in unplaced:  # a divergence with no location is no finding: list it here
        out.append(f"CL005 (no source line in the trace): {d.get('message')}")
    return out


RANK_HEADERS = [
    "ranks",
    "graphs",
    "graph breaks",
    "recompiles",
    "collectives",
    "compile s",
    "differs from the largest group",
]


def diff_base_line(report: Report) -> str | None:
    db = report.extra.get("diff_base")
    if not isinstance(db, dict):
        return None
    return (
        f"Only lines changed against {db.get('ref')} ({str(db.get('merge_base'))[:12]}); "
        f"{plural(int(db.get('dropped_findings') or 0), 'finding')} elsewhere not shown."
    )


def env_of(options: Mapping[str, object]) -> Mapping[str, str]:
    env = options.get("env")
    return env if isinstance(env, Mapping) else {}


def int_option(options: Mapping[str, object], key: str, default: int) -> int:
    """``options[key]`` as an int (``default`` when absent or None); a value that is not a
    number or a numeric string raises TypeError or ValueError, as ``int()`` does."""
    value = options.get(key)
    if value is None:
        return default
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"option {key!r} must be an int, not {type(value).__name__}")


def cwd_of(options: Mapping[str, object]) -> str:
    cwd = options.get("cwd")
    return str(cwd) if cwd else os.getcwd()


def repo_relative(path: str, options: Mapping[str, object]) -> str | None:
    """``path`` (relative to ``cwd``) relative to ``srcroot`` with ``/``; None when outside."""
    cwd = cwd_of(options)
    root = str(options.get("srcroot") or cwd)
    full = os.path.realpath(os.path.join(cwd, path))
    root = os.path.realpath(root)
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(full, root).replace(os.sep, "/")


def text_table(rows: Sequence[Sequence[object]], headers: list[str], tablefmt: str) -> str:
    """tabulate with character-count widths, whether or not ``wcwidth`` is installed, so the same
    report renders byte-identically everywhere (emoji widths are the terminal's business)."""
    import tabulate as tb

    saved = tb.WIDE_CHARS_MODE
    tb.WIDE_CHARS_MODE = False
    try:
        return tb.tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True)
    finally:
        tb.WIDE_CHARS_MODE = saved
