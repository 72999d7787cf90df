"""``--format table``: a plain tabulate table for logs without color.

One row per finding, ranked (the dynamic stage's rank when it ran, else severity then location),
with whether it was predicted, observed or confirmed, torch's GB id and the count; then file
errors and the summary line. Line breaks inside a message are flattened so a row stays a row.
"""

from __future__ import annotations

from compilelint.catalog import Catalog
from compilelint.model import Report
from compilelint.report.common import (
    diff_base_line,
    dynamic_line,
    rank_group_lines,
    ranked,
    stage_label,
    summary_line,
    text_table,
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    rows = [
        (
            f.rank or i,
            f"{f.path}:{f.line}:{f.col}",
            f.rule,
            f.severity,
            stage_label(f),
            f.gb_id or "",
            f.count,
            _flat(f.message),
        )
        for i, f in enumerate(ranked(report.findings), 1)
    ]
    out: list[str] = []
    if rows:
        out.append(
            text_table(
                rows,
                [
                    "#",
                    "location",
                    "rule",
                    "severity",
                    "status",
                    "torch",
                    "count",
                    "message",
                ],
                "simple",
            )
        )
    for e in report.errors:
        out.append(f"error: {e.path}: {_flat(e.message)}" if e.path else f"error: {e.message}")
    for line in (dynamic_line(report), *rank_group_lines(report), diff_base_line(report)):
        if line:
            out.append(line)
    out.append(summary_line(report))
    return "\n".join(out) + "\n"
