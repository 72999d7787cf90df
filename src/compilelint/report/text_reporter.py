"""``--format text`` (default): grouped by file, the source line, a caret under the span, the
message and the fix (and torch's hints with ``options["hints"]``). Colour through rich when
writing to a terminal, plain otherwise.

Plain output is what rich writes without colour (each line as given, soft-wrapped), built
without importing rich (about a tenth of the pre-commit hook's start-up); text with a tab or a
control character that rich rewrites (tab stops, stripped codes) still goes through rich."""

from __future__ import annotations

import io
from itertools import groupby
from typing import Any

from compilelint.baseline import summary_line
from compilelint.catalog import Catalog
from compilelint.model import Report
from compilelint.report.common import (
    dynamic_line,
    int_option,
    prediction_lines,
    rank_group_lines,
    timing_text,
)

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_STAGE = {"static": "predicted", "dynamic": "observed", "both": "confirmed"}


# characters that rich's Text does not write as given: a tab (expanded to tab stops) and the
# control codes it strips (bell, backspace, vertical tab, form feed, carriage return)
_REWRITTEN = frozenset("\t\a\b\v\f\r")


class Text:
    """A line of styled parts (rich's ``Text``, as far as this reporter uses it)."""

    def __init__(self, text: str = "", style: str = "") -> None:
        self.parts: list[tuple[str, str]] = [(text, style)] if text else []
        self.style = style

    def append(self, text: str, style: str = "") -> None:
        self.parts.append((text, style))


class _Console:
    """The lines printed, written by rich (colour, or text rich rewrites) or as they are."""

    def __init__(self) -> None:
        self.lines: list[Text | None] = []

    def print(self, line: Text | None = None) -> None:
        self.lines.append(line)

    def getvalue(self, color: bool, width: int) -> str:
        plain = [
            "".join(t for t, _ in line.parts) if line is not None else "" for line in self.lines
        ]
        if not color and not any(_REWRITTEN.intersection(x) for x in plain):
            return "".join(x + "\n" for x in plain)
        from rich.console import Console
        from rich.text import Text as RichText

        buf = io.StringIO()
        con = Console(
            file=buf,
            force_terminal=color,
            no_color=not color,
            color_system="standard" if color else None,
            width=width,
            highlight=False,
            soft_wrap=True,
        )
        for line in self.lines:
            if line is None:
                con.print()
                continue
            rt: Any = RichText(style=line.style)
            for i, (t, st) in enumerate(line.parts):
                # the first part of ``Text(text, style)`` has the line's own style
                rt.append(t, style=None if (i == 0 and st == line.style) or not st else st)
            con.print(rt)
        return buf.getvalue()


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    color = bool(options.get("color", False))
    width = int_option(options, "width", 100) or 100
    con = _Console()
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
    for rank_line in rank_group_lines(report):
        con.print(Text("  " + rank_line))
    for prediction in prediction_lines(report):
        con.print(Text(prediction))
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
    return con.getvalue(color, width)
