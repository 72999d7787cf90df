"""Rank findings by impact. Pure functions.

Order (issue: dynamic stage): an observed break that makes torch give up on the whole frame
(a break in a loop: GB7000, the loop over layers then runs eagerly) leads; then confirmed and
observed breaks on the per-call path, more when they repeat per call; then recompiles by count
and whether they hit the limit; then static-only risks by severity, lower when the run executed
the line without a break or never reached it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

from compilelint.merge import (
    COV_NOT_REACHED,
    COV_TRACED,
    NOT_OBSERVED,
    NOT_REACHED,
    norm_path,
)
from compilelint.model import Finding, ObservedBreak

SEVERITY_POINTS = {"error": 30.0, "warning": 20.0, "info": 10.0}
RECOMPILE_RULE = "CL003"
COMPILE_FAILURE_RULE = "CL004"


def impact_parts(
    f: Finding, loop_keys: set[tuple[str, int]], skipped_keys: set[tuple[str, int]], root: str
) -> dict[str, float]:
    """The impact of one finding, as named parts that sum to the total."""
    parts: dict[str, float] = {}
    key = (norm_path(f.path, root), f.line)
    count = max(int(f.count or 1), 1)
    if f.rule == COMPILE_FAILURE_RULE:  # torch.compile itself fails: nothing else matters yet
        parts["compile_failure"] = 1000.0
        return parts
    if f.rule == RECOMPILE_RULE or (f.stage in ("dynamic", "both") and f.gb_type is None):
        # Recompiles rank after observed breaks (< 100) and before static-only risks (<= 30).
        parts["recompile"] = 40.0
        parts["count"] = round(min(30.0, 8.0 * math.log2(1 + count)), 2)
        if "recompile limit" in f.message:
            parts["hit_limit"] = 25.0
        if f.stage == "both":
            parts["confirmed"] = 3.0
        return parts
    if f.stage in ("dynamic", "both"):
        parts["observed_break"] = 100.0
        if key in loop_keys:
            parts["break_in_loop"] = 80.0
        elif key in skipped_keys:
            parts["frame_skipped"] = 50.0
        parts["count"] = round(10.0 * math.log2(1 + count), 2)
        if f.stage == "both":
            parts["confirmed"] = 10.0
        return parts
    parts["severity"] = SEVERITY_POINTS.get(f.severity, 10.0)
    if f.message.endswith((NOT_OBSERVED, COV_TRACED)):
        parts["not_observed"] = -parts["severity"] * 0.5
    elif f.message.endswith((NOT_REACHED, COV_NOT_REACHED)):
        parts["not_reached"] = -parts["severity"] * 0.7
    return parts


def rank_findings(
    findings: Sequence[Finding], breaks: Iterable[ObservedBreak] = (), *, root: str = "."
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Findings ordered by impact with ``rank`` 1..N and ``impact`` set; plus why, per rank."""
    loop_keys: set[tuple[str, int]] = set()
    skipped: set[tuple[str, int]] = set()
    for b in breaks:
        path = b.path or b.loc_path
        line = b.line if b.line is not None else b.loc_line
        if not path:
            continue
        k = (norm_path(path, root), line)
        if b.in_loop:
            loop_keys.add(k)
        if b.frame_skipped:
            skipped.add(k)
    scored = []
    for f in findings:
        parts = impact_parts(f, loop_keys, skipped, root)
        scored.append((round(sum(parts.values()), 2), parts, f))
    scored.sort(key=lambda t: (-t[0], t[2].path, t[2].line, t[2].rule))
    ranked: list[Finding] = []
    why: list[dict[str, Any]] = []
    for i, (total, parts, f) in enumerate(scored, 1):
        ranked.append(dataclasses.replace(f, rank=i, impact=total))
        why.append(
            {
                "rank": i,
                "rule": f.rule,
                "path": f.path,
                "line": f.line,
                "impact": total,
                "parts": parts,
            }
        )
    return ranked, why
