"""``CL005`` rank divergence: what one rank's trace shows and another's does not.

Under DDP/FSDP every rank must run the same collectives in the same order. Ranks that break the
graph at different places, recompile at different times or compile a different number of graphs
for a function run different code between collectives (a recompile alone can stall one rank for
seconds while the others wait in an all-reduce); at worst they hang. Compared per rank (the
``--input-spec`` run is not a rank): each distinct break, each recompile (by function, line and
guard shape) and each user function's graph count. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compilelint.catalog import Catalog
from compilelint.dynamic.capture import guard_key, relpath, strip_resume
from compilelint.merge import _first_col, _line_text, display_path, fill, norm_path
from compilelint.model import Finding

if TYPE_CHECKING:
    from compilelint.trace.api import TraceRun

DIVERGENCE_RULE = "CL005"


def ranks_text(ranks: list[str]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(ranks)


def _detail(counts: Mapping[str, int], noun: str) -> str:
    """``on ranks 1 (x2) but not on rank 0`` / ``3 times on rank 1, once on rank 0``."""
    present = [r for r, c in counts.items() if c]
    absent = [r for r, c in counts.items() if not c]
    if absent:
        return f"{noun} on {ranks_text(present)} but not on {ranks_text(absent)}"
    by: dict[int, list[str]] = {}
    for r, c in counts.items():
        by.setdefault(c, []).append(r)
    parts = [f"{c}x on {ranks_text(rs)}" for c, rs in sorted(by.items(), reverse=True)]
    return f"{noun} " + ", ".join(parts)


def divergence_findings(
    run: TraceRun, catalog: Catalog, *, root: str
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """CL005 findings (where a location is known) and the JSON ``divergence`` list (all)."""
    ranks = {k: v for k, v in run.ranks.items() if k != "spec"}
    if len(ranks) < 2:
        return [], []
    labels = sorted(ranks, key=lambda x: (len(x), x))
    rule = catalog.get(DIVERGENCE_RULE)
    items: list[dict[str, Any]] = []
    # Breaks: present on some ranks only.
    for b in run.result.breaks:
        counts = {r: next((x.count for x in ranks[r].breaks if x.key == b.key), 0) for r in labels}
        if all(counts.values()):
            continue
        path = b.path or b.loc_path
        items.append(
            {
                "kind": "graph_break",
                "what": f"graph break `{b.gb_type}`",
                "counts": counts,
                "path": path,
                "line": b.line if b.line is not None else b.loc_line,
                "function": b.function,
            }
        )
    # Recompiles: a different number per rank.
    for rc in run.result.recompiles:
        key = (rc.function, rc.path, rc.line, guard_key(rc.guard))
        counts = {
            r: sum(
                x.count
                for x in ranks[r].recompiles
                if (x.function, x.path, x.line, guard_key(x.guard)) == key
            )
            for r in labels
        }
        if len(set(counts.values())) < 2:
            continue
        items.append(
            {
                "kind": "recompile",
                "what": f"`{rc.function}` recompiles (guard `{rc.guard}`)",
                "counts": counts,
                "path": rc.path or rc.code_path,
                "line": rc.line or rc.code_line or 0,
                "function": rc.function,
            }
        )
    # Graph counts per user function (resume functions count for the function they resume).
    per_fn: dict[tuple[str, str, int], dict[str, int]] = {}
    first: dict[tuple[str, str], int] = {}
    for r in labels:
        for g in ranks[r].raw.get("graphs") or []:
            path = g.get("path")
            if not path:
                continue
            fn = strip_resume(str(g.get("function") or ""))
            line = int(g.get("first_line") or 0)
            k2 = (str(path), fn)
            if fn == g.get("function"):
                first[k2] = line
            per_fn.setdefault((str(path), fn, 0), dict.fromkeys(labels, 0))[r] += 1
    flagged = {(norm_path(str(i["path"]), root), i["function"]) for i in items if i["path"]}
    for (path, fn, _), counts in per_fn.items():
        if len(set(counts.values())) < 2 or (norm_path(path, root), fn) in flagged:
            continue
        items.append(
            {
                "kind": "graph_count",
                "what": f"`{fn}` compiles a different number of graphs:",
                "counts": counts,
                "path": path,
                "line": first.get((path, fn), 0),
                "function": fn,
            }
        )
    findings: list[Finding] = []
    block: list[dict[str, Any]] = []
    for it in items:
        noun = it["what"]
        if it["kind"] == "graph_count":
            detail = (
                noun + " " + ", ".join(f"{c} on {ranks_text([r])}" for r, c in it["counts"].items())
            )
        else:
            detail = _detail(it["counts"], noun)
        path = str(it["path"] or "")
        entry = {
            "kind": it["kind"],
            "message": detail,
            "ranks": it["counts"],
            "path": relpath(path, root) if path else None,
            "line": it["line"] or None,
            "function": it["function"] or None,
        }
        block.append(entry)
        if not path or not it["line"] or not os_is_user(path, root):
            continue
        npath = norm_path(path, root)
        line = int(it["line"])
        msg = (
            fill(rule.message, detail=detail)
            if rule
            else f"Ranks diverge: {detail}; collectives can desynchronise and hang"
        )
        col = _first_col(npath, line)
        findings.append(
            Finding(
                rule=DIVERGENCE_RULE,
                name=rule.name if rule else "rank-divergence",
                path=display_path(path, root),
                line=line,
                col=col,
                end_line=line,
                end_col=col + 1,
                severity=rule.severity if rule else "warning",
                message=msg,
                fix=rule.fix_title if rule else "",
                stage="dynamic",
                function=str(it["function"] or ""),
                line_text=_line_text(npath, line),
                count=sum(it["counts"].values()),
                observed=True,
            )
        )
    return findings, block


def os_is_user(path: str, root: str) -> bool:
    from compilelint.dynamic.capture import frame_kind

    return frame_kind(path, root) == "user"
