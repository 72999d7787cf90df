"""``--format text`` (default): grouped by file, the source line, a caret under the span, the
message and the fix (and torch's hints with ``options["hints"]``). Colour through rich when
writing to a terminal, plain otherwise."""

from __future__ import annotations

import io
from itertools import groupby

from rich.console import Console
from rich.text import Text

from compilelint.baseline import summary_line
from compilelint.catalog import Catalog
from compilelint.model import Report
from compilelint.report.common import dynamic_line, prediction_lines, rank_group_lines, timing_text

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_STAGE = {"static": "predicted", "dynamic": "observed", "both": "confirmed"}


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    color = bool(options.get("color", False))
    buf = io.StringIO()
    con = Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        width=int(options.get("width", 100) or 100),
        highlight=False,
        soft_wrap=True,
    )
    for path, group in groupby(report.findings, key=lambda f: f.path):
        con.print(Text(path, style="bold underline"))
        for f in group:
            head = Text()
            head.append(f"{f.path}:{f.line}:{f.col}: ", style="bold")
            head.append(f.rule, style=_STYLE.get(f.severity, ""))
            head.append(f" [{f.severity}, {_STAGE.get(f.stage, f.stage)}] ")
            head.append(f.message)
            if f.count > 1:
                head.append(f" (x{f.count})")
            con.print(head)
            raw = f.line_text.rstrip()
            src = raw.lstrip()
            if src:
                gutter = len(str(f.line))
                con.print(Text(f"{' ' * gutter} |", style="blue"))
                line = Text(f"{f.line} | ", style="blue")
                line.append(src)
                con.print(line)
                # caret: the span is on the stripped line; shift by the stripped indentation
                indent = max(0, f.col - 1 - (len(raw) - len(src)))
                width = (f.end_col - f.col) if f.end_line == f.line and f.end_col > f.col else 1
                width = max(1, min(width, max(1, len(src) - indent)))
                caret = Text(f"{' ' * gutter} | ", style="blue")
                caret.append(" " * indent + "^" * width, style=_STYLE.get(f.severity, ""))
                con.print(caret)
            if f.package and f.frames:
                inner = f.frames[-1]
                con.print(
                    Text(
                        f"  = in: {f.package} {inner.path}:{inner.line} ({inner.function})",
                        style="dim",
                    )
                )
            if f.gb_id or f.gb_type:
                con.print(
                    Text(f"  = torch: {f.gb_id or ''} {f.gb_type or ''}".rstrip(), style="dim")
                )
            if options.get("hints"):
                for hint in dict.fromkeys(f.hints):  # torch repeats some
                    con.print(Text(f"  = hint: {hint}", style="dim"))
            if f.fix:
                fx = Text("  = fix: ", style="green")
                fx.append(f.fix)
                con.print(fx)
        con.print()
    for e in report.errors:
        con.print(Text(f"error: {e.message}", style="bold red"))
    follow = report.extra.get("follow")
    if isinstance(follow, dict) and follow.get("bounds"):
        con.print(
            Text(
                "note: following calls into installed packages stopped at "
                + ", ".join(str(b) for b in follow["bounds"])
                + ": breaks past that point are not reported",
                style="yellow",
            )
        )
    dyn_line = dynamic_line(report)
    if dyn_line:
        con.print(Text(dyn_line))
    for line in rank_group_lines(report):
        con.print(Text("  " + line))
    for line in prediction_lines(report):
        con.print(Text(line))
    baseline = summary_line(report.extra.get("baseline"))
    if baseline:
        con.print(Text(baseline))
    s = report.summary
    n = len(report.findings)
    counts = {
        k: sum(1 for f in report.findings if f.severity == k) for k in ("error", "warning", "info")
    }
    parts = [f"{v} {k}{'s' if v != 1 else ''}" for k, v in counts.items() if v]
    if n:
        msg = f"Found {n} finding{'s' if n != 1 else ''} ({', '.join(parts)})"
    else:
        msg = "No findings"
    con.print(
        Text(
            f"{msg} in {s.files} file{'s' if s.files != 1 else ''} ({s.lines} lines) in "
            f"{timing_text(report)}."
        ),
    )
    return buf.getvalue()
