"""``--format github``: GitHub Actions workflow commands that become PR annotations.

    ::error file=models/net.py,line=12,endLine=12,col=9,endColumn=30,title=CL101 tensor-dependent-branch::Branch on ...

GitHub shows at most 10 annotations of each level (error, warning, notice) per step and 50 per
job, and silently drops the rest. So this reporter spends that budget itself: file errors
first, then findings on lines changed in the pull request (when ``options["changes"]`` is
given), then by rank; and when anything is left out it ends with one notice saying how many
findings are not annotated and where to find them (the step summary, when
``$GITHUB_STEP_SUMMARY`` is set). Columns are given only when the span is on one line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from compilelint.catalog import Catalog
from compilelint.model import FileError, Finding, Report
from compilelint.report.common import (
    cwd_of,
    env_of,
    int_option,
    plural,
    priority_key,
    repo_relative,
    stage_label,
)

PER_LEVEL = 10  # annotations GitHub shows per level and step
PER_JOB = 50  # annotations GitHub shows per job
_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """actions/toolkit ``escapeData``: ``%``, CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """actions/toolkit ``escapeProperty``: ``escapeData`` plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    """One workflow command line; properties with a ``None`` value are left out."""
    parts = [f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None]
    head = f"::{level}" + (" " + ",".join(parts) if parts else "")
    return f"{head}::{escape_data(message)}"


def finding_command(f: Finding, options: Mapping[str, object] | None = None) -> str:
    one_line = f.end_line == f.line and f.end_col > f.col
    lines = [f"{f.message}" + (f" (x{f.count})" if f.count > 1 else "")]
    detail = f"[{f.severity}, {stage_label(f)}]"
    if f.gb_id or f.gb_type:
        detail += f" torch: {' '.join(x for x in (f.gb_id, f.gb_type) if x)}"
    lines.append(detail)
    if f.fix:
        lines.append(f"fix: {f.fix}")
    return command(
        _LEVEL.get(f.severity, "warning"),
        "\n".join(lines),
        file=repo_relative(f.path, options or {}) or f.path,
        line=f.line,
        endLine=max(f.line, f.end_line),
        col=f.col if one_line else None,
        endColumn=f.end_col if one_line else None,
        title=f"{f.rule} {f.name}",
    )


def error_command(e: FileError, options: Mapping[str, object] | None = None) -> str:
    path = (repo_relative(e.path, options or {}) or e.path) if e.path else None
    return command("error", e.message, file=path, title=f"compilelint {e.kind}")


def select(
    findings: list[Finding], changes: Any, budget: dict[str, int], total: int, cwd: str = ""
) -> tuple[list[Finding], int]:
    """The findings to annotate within the budget, best first; and how many are left out."""

    def key(f: Finding) -> tuple[Any, ...]:
        path = os.path.join(cwd, f.path)
        changed = changes is not None and changes.touches(path, f.line, f.end_line)
        return (0 if changed else 1, *priority_key(f))

    chosen: list[Finding] = []
    for f in sorted(findings, key=key):
        level = _LEVEL.get(f.severity, "warning")
        if total > 0 and budget.get(level, 0) > 0:
            chosen.append(f)
            budget[level] -= 1
            total -= 1
    return chosen, len(findings) - len(chosen)


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    per_level = int_option(options, "annotation_limit", PER_LEVEL)
    per_job = int_option(options, "annotation_job_limit", PER_JOB)
    budget = {"error": per_level, "warning": per_level, "notice": per_level}
    total = per_job
    out: list[str] = []
    for e in report.errors:
        if budget["error"] > 0 and total > 0:
            out.append(error_command(e, options))
            budget["error"] -= 1
            total -= 1
    findings = list(report.findings)
    chosen, left = select(findings, options.get("changes"), dict(budget), total, cwd_of(options))
    if left:
        # keep one notice, and one slot of the job's budget, for the note below
        budget["notice"] -= 1
        chosen, left = select(findings, options.get("changes"), budget, total - 1, cwd_of(options))
    out.extend(finding_command(f, options) for f in chosen)
    if left:
        env: Mapping[str, str] = env_of(options)
        where = (
            "in the step summary"
            if env.get("GITHUB_STEP_SUMMARY")
            else "in the full report (`compilelint check` or --format markdown)"
        )
        out.append(
            command(
                "notice",
                f"{plural(left, 'more finding')} not annotated here (GitHub shows at most "
                f"{per_level} annotations per level in a step); all "
                f"{plural(len(findings), 'finding')} are {where}.",
                title="compilelint",
            )
        )
    return "".join(line + "\n" for line in out)
