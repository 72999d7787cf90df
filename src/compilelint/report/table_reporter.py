"""``--format table``: a plain tabulate table for logs without color."""

from __future__ import annotations

from tabulate import tabulate

from compilelint.catalog import Catalog
from compilelint.model import Report


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    rows = [
        (f"{f.path}:{f.line}:{f.col}", f.rule, f.severity, f.stage, f.message)
        for f in report.findings
    ]
    if not rows:
        return "No findings.\n"
    return tabulate(rows, headers=["location", "rule", "severity", "stage", "message"]) + "\n"
