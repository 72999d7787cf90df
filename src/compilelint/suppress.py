"""Inline suppressions: ``# noqa``, ``# noqa: CL101,CL103``, ``# compilelint: ignore[CL101]``."""

from __future__ import annotations

import re

_NOQA = re.compile(
    r"#\s*(?:noqa(?::\s*(?P<codes>[A-Z]+\d+(?:[\s,]+[A-Z]+\d+)*))?"
    r"|compilelint:\s*ignore(?:\[(?P<codes2>[A-Z0-9,\s]*)\])?)",
    re.I,
)
ALL = "*"


def parse_suppressions(text: str) -> dict[int, list[str]]:
    """Map 1-based line -> suppressed codes (``["*"]`` for all)."""
    out: dict[int, list[str]] = {}
    if "noqa" not in text.lower() and "compilelint:" not in text:
        return out
    for i, line in enumerate(text.splitlines(), 1):
        if "#" not in line:
            continue
        m = _NOQA.search(line)
        if not m:
            continue
        codes = m.group("codes") or m.group("codes2")
        if codes:
            out[i] = sorted({c.upper() for c in re.split(r"[\s,]+", codes) if c})
        else:
            out[i] = [ALL]
    return out


def is_suppressed(sup: dict[int, list[str]], code: str, line: int, end_line: int) -> int | None:
    """The line of the directive that suppresses ``code`` on [line, end_line], if any."""
    for ln in range(line, max(line, end_line) + 1):
        codes = sup.get(ln)
        if codes and (ALL in codes or code in codes):
            return ln
    return None
