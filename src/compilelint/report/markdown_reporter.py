"""``--format markdown``: a ranked table for step summaries and pull-request comments.

Locations link to the file and line: relative links, or ``{server}/{repo}/blob/{sha}/path#Lnn``
when ``GITHUB_SERVER_URL``, ``GITHUB_REPOSITORY`` and ``GITHUB_SHA`` are in ``options["env"]``.
Table cells escape ``|`` and line breaks. The output stays under GitHub's 1 MiB step-summary
limit by leaving out the lowest-ranked rows (and saying so).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from compilelint.catalog import Catalog
from compilelint.model import Finding, Report
from compilelint.report.common import (
    RANK_HEADERS,
    diff_base_line,
    dynamic_line,
    env_of,
    int_option,
    plural,
    rank_group_lines,
    rank_rows,
    ranked,
    repo_relative,
    stage_label,
    summary_line,
    text_table,
)

MAX_BYTES = 1_000_000  # GitHub's step summary takes 1 MiB per step
_BADGE = {"error": "🔴 error", "warning": "🟡 warning", "info": "🔵 info"}
_STATUS = {"confirmed": "✅ confirmed", "observed": "👁 observed", "predicted": "🔮 predicted"}


def cell(text: str) -> str:
    """Escape a table cell: pipes and line breaks would end the cell or the row."""
    text = text.replace("|", "\\|")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def link(f: Finding, options: Mapping[str, object]) -> str:
    label = f"{f.path}:{f.line}"
    env = env_of(options)
    server, repo, sha = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_SHA"),
    )
    rel = repo_relative(f.path, options)
    if server and repo and sha and rel is not None:
        target = f"{server.rstrip('/')}/{repo}/blob/{sha}/{quote(rel)}#L{f.line}"
    elif not f.path.startswith("/"):
        target = f"{quote(f.path)}#L{f.line}"
    else:
        return f"`{cell(label)}`"
    return f"[{cell(label)}]({target})"


def status(f: Finding) -> str:
    text = _STATUS.get(stage_label(f), stage_label(f))
    if f.gb_id:
        text += f" {f.gb_id}"
    if f.count > 1:
        text += f" ×{f.count}"
    return text


def fix_cell(f: Finding) -> str:
    text = f.fix
    if f.edits:
        text += " (autofix available)"
    return cell(text)


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    head = ["## compilelint", "", summary_line(report)]
    for extra in (dynamic_line(report), diff_base_line(report)):
        if extra:
            head += ["", extra]
    groups = rank_group_lines(report, groups=False)
    if groups:
        head += ["", *[f"- {cell(g)}" for g in groups]]
    if rank_rows(report):
        head += ["", text_table(rank_rows(report), RANK_HEADERS, "github")]
    findings = ranked(report.findings)
    rows = [
        (
            str(f.rank or i),
            link(f, options),
            f"{f.rule} `{f.name}`",
            _BADGE.get(f.severity, f.severity),
            status(f),
            cell(f.message),
            fix_cell(f),
        )
        for i, f in enumerate(findings, 1)
    ]
    tail: list[str] = []
    if report.errors:
        tail += ["", "### Errors", ""]
        tail += [f"- `{cell(e.path)}`: {cell(e.message)}" for e in report.errors]
    tail += [
        "",
        "<sub>predicted: found by the static stage; observed: reported by torch in the dynamic "
        "run; confirmed: both.</sub>",
    ]
    headers = ["#", "location", "rule", "severity", "status", "message", "fix"]
    limit = int_option(options, "max_bytes", MAX_BYTES)
    shown = len(rows)
    while True:
        parts = list(head)
        if shown:
            table = text_table(rows[:shown], headers, "github")
            parts += ["", table]
        if shown < len(rows):
            parts += [
                "",
                f"… and {plural(len(rows) - shown, 'more finding')} (lower ranked) not shown "
                "here: the size limit of a step summary is 1 MiB.",
            ]
        text = "\n".join(parts + tail) + "\n"
        if len(text.encode("utf-8")) <= limit or shown == 0:
            return text
        # drop rows in proportion to the excess, at least one
        over = len(text.encode("utf-8")) - limit
        avg = max(1, len(table.encode("utf-8")) // max(1, shown))
        shown = max(0, shown - max(1, over // avg + 1))
