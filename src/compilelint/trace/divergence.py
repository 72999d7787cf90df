"""Rank divergence: what one rank's trace shows and another's does not.

Under DDP/FSDP every rank must run the same collectives in the same order. Ranks that break the
graph at different places, recompile at different times, fail to compile on some ranks only or
compile a different number of graphs for a function run different code between collectives (a
recompile alone can stall one rank for seconds while the others wait in an all-reduce); ranks
whose compiled graphs issue another set of collectives, or the same in another order, hang.
Compared per rank (the ``--input-spec`` run is not a rank): each distinct break, each recompile
(by function, line and guard shape), each compile failure, each user function's graph count and
each function's collective schedule (Inductor's ``inductor_collective_schedule`` per compiled
graph, else the collectives of the output graph).

Ranks whose traces say the same thing share one :class:`~compilelint.dynamic.api.DynamicResult`
object; every comparison here runs once per distinct result, so a 1,000-rank job of a few
distinct behaviours costs a few comparisons. Pure functions over plain data: this module imports
nothing of :mod:`compilelint.trace.api` (which imports it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compilelint.catalog import Catalog
from compilelint.dynamic.api import DynamicResult
from compilelint.dynamic.capture import guard_key, relpath, strip_resume
from compilelint.merge import _first_col, _line_text, display_path, fill, norm_path
from compilelint.model import Finding
from compilelint.trace.ranges import rank_order, rank_ranges, ranks_text

DIVERGENCE_RULE = "CL005"
SPEC_RANK = "spec"
LIBRARY_MARKERS = ("site-packages", "dist-packages")
OP_PREFIX_RE = re.compile(r"^(?:torch\.ops\.)?(?:_c10d_functional|c10d_functional|c10d)\.")
OP_SUFFIX_RE = re.compile(r"(?:\.default)?$")
BASE_SUFFIX_RE = re.compile(r"(?:_into_tensor|_tensor|_single|_coalesced|_base)*_?$")
NOT_COLLECTIVES = frozenset({"wait_tensor"})


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Collective:
    """One collective of a compiled graph, in schedule order."""

    op: str  # all_reduce, all_gather_into_tensor, ...
    group: str | None  # the process group's name, from the output graph
    path: str | None = None  # the user line that issues it, where the trace has it
    line: int | None = None

    def text(self) -> str:
        return self.op + (f" (group {self.group})" if self.group is not None else "")


@dataclass(frozen=True)
class GraphCollectives:
    """The collectives one compiled graph issues (one compile of one function)."""

    compile_id: str  # torch's frame_id/frame_compile_id, "0/0"
    collectives: tuple[Collective, ...]
    source: str  # "inductor_collective_schedule" or "dynamo_output_graph"


@dataclass(frozen=True)
class Divergence:
    """One difference between ranks. ``values``: each rank's side, as a short text (ranks with
    equal texts behave the same here); ``counts``: each rank's count (JSON)."""

    kind: str  # graph_break | recompile | compile_failure | graph_count | collectives
    message: str
    counts: dict[str, int]
    values: dict[str, str]
    path: str | None
    line: int | None
    function: str | None
    compile_id: str | None = None
    position: int | None = None  # collectives: the 1-based position of the first difference
    ops: dict[str, str] = field(default_factory=dict)  # collectives: each rank's op there
    # collectives: each group of ranks with the same schedule of that graph, and the schedule
    sides: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class RankGroup:
    """Ranks that behave identically (the largest group is ``same``) and, for the others, what
    differs from the largest group."""

    ranks: tuple[str, ...]
    same: bool
    differences: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return ranks_text(self.ranks)


# --------------------------------------------------------------------------- helpers


def _by_value(values: Mapping[str, Any]) -> list[tuple[Any, list[str]]]:
    """Ranks grouped by their value, the largest group first."""
    by: dict[Any, list[str]] = {}
    for r, v in values.items():
        by.setdefault(v, []).append(r)
    return sorted(by.items(), key=lambda kv: (-len(kv[1]), rank_order(kv[1])[0]))


def _detail(counts: Mapping[str, int], noun: str) -> str:
    """``on rank 1 but not on rank 0`` / ``3x on rank 1, 1x on rank 0``."""
    present = [r for r, c in counts.items() if c]
    absent = [r for r, c in counts.items() if not c]
    if absent:
        return f"{noun} on {ranks_text(present)} but not on {ranks_text(absent)}"
    parts = [f"{c}x on {ranks_text(rs)}" for c, rs in sorted(_by_value(counts), reverse=True)]
    return f"{noun} " + ", ".join(parts)


def op_name(op: str) -> str:
    """``torch.ops._c10d_functional.all_reduce_.default`` -> ``all_reduce``."""
    name = OP_SUFFIX_RE.sub("", OP_PREFIX_RE.sub("", op.strip()), count=1)
    return name[:-1] if name.endswith("_") else name


def _base(op: str) -> str:
    """What a user's call of the op is named like: ``all_gather_into_tensor`` -> ``all_gather``."""
    return BASE_SUFFIX_RE.sub("", op) or op


def is_library(path: str) -> bool:
    return any(m in path for m in LIBRARY_MARKERS)


# --------------------------------------------------------------------------- collectives


def graph_collectives(raw: Mapping[str, Any]) -> dict[tuple[str, str, int], list[GraphCollectives]]:
    """A rank's collectives per compiled function (path, function, first line), one entry per
    compiled graph in compile order: Inductor's schedule where the trace has it (the order the
    compiled code issues them), else the output graph's collectives (program order). Each
    collective takes its group and user line from the output graph."""
    graphs = {(g.get("frame_id"), g.get("frame_compile_id")): g for g in raw.get("graphs") or []}
    codes: dict[tuple[Any, Any], Mapping[str, Any]] = {}
    for m in raw.get("metrics") or []:
        if m.get("co_name"):
            codes.setdefault((m.get("frame_id"), m.get("frame_compile_id")), m)
    out: dict[tuple[str, str, int], list[GraphCollectives]] = {}
    scheduled: set[tuple[Any, Any]] = set()

    def key_of(g: Mapping[str, Any]) -> tuple[str, str, int]:
        return (
            str(g.get("path") or ""),
            str(g.get("function") or ""),
            int(g.get("first_line") or 0),
        )

    def key_of_ids(ids: tuple[Any, Any], cid: str) -> tuple[str, str, int]:
        """A schedule with no output graph in the trace: its function from the compilation
        metrics, else the compile id names the graph."""
        m = codes.get(ids)
        if m is not None:
            path = str(m.get("co_filename") or "")
            return (path, str(m["co_name"]), int(m.get("co_firstlineno") or 0))
        return ("", f"graph {cid}", 0)

    for s in raw.get("schedules") or []:
        ids = (s.get("frame_id"), s.get("frame_compile_id"))
        g = graphs.get(ids) or {}
        in_graph = list(g.get("collectives") or [])
        used: dict[str, int] = {}
        colls = []
        for op in s.get("ops") or []:
            name = op_name(op)
            if name in NOT_COLLECTIVES:
                continue
            same = [c for c in in_graph if op_name(str(c.get("op"))) == name]
            k = used.get(name, 0)
            used[name] = k + 1
            src = same[k] if k < len(same) else None
            colls.append(_collective(name, src))
        # a compile's forward and backward graphs both log a schedule: they add up
        gc = GraphCollectives(
            str(s.get("compile_id") or ""), tuple(colls), "inductor_collective_schedule"
        )
        lst = out.setdefault(key_of(g) if g else key_of_ids(ids, gc.compile_id), [])
        if ids in scheduled and lst:
            last = lst[-1]
            lst[-1] = GraphCollectives(
                last.compile_id, last.collectives + gc.collectives, last.source
            )
        else:
            lst.append(gc)
        scheduled.add(ids)
    for ids, g in graphs.items():
        if ids in scheduled or not g.get("collectives"):
            continue
        colls = [_collective(op_name(str(c.get("op"))), c) for c in g["collectives"]]
        cid = str(g.get("compile_id") or "")
        out.setdefault(key_of(g), []).append(
            GraphCollectives(cid, tuple(colls), "dynamo_output_graph")
        )
    return out


def _sides(
    graph_of: Mapping[str, GraphCollectives | None],
) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Ranks grouped by the schedule of one graph (largest group first): (ranks, schedule)."""
    sched = {
        r: tuple(c.text() for c in g.collectives) if g is not None else ()
        for r, g in graph_of.items()
    }
    return tuple((tuple(rank_order(rs)), v) for v, rs in _by_value(sched))


def _collective(name: str, src: Mapping[str, Any] | None) -> Collective:
    if src is None:
        return Collective(name, None)
    user = src.get("user")
    path: str | None = None
    line: int | None = None
    # the last user line before it issues it only when that line's code names the collective
    if isinstance(user, (list, tuple)) and len(user) == 3 and _base(name) in str(user[2]):
        path, line = str(user[0]), int(user[1])
    group = src.get("group")
    return Collective(name, str(group) if group is not None else None, path, line)


def _collective_divergences(
    per: Mapping[str, Mapping[tuple[str, str, int], list[GraphCollectives]]],
    labels: Sequence[str],
) -> list[Divergence]:
    out: list[Divergence] = []
    keys = sorted({k for m in per.values() for k in m}, key=lambda k: (k[0], k[2], k[1]))
    for key in keys:
        path, fn, first = key
        sides = {r: per[r].get(key, []) for r in labels}
        sigs = {
            r: tuple(tuple((c.op, c.group) for c in g.collectives) for g in gs)
            for r, gs in sides.items()
        }
        if len(set(sigs.values())) < 2:
            continue
        name = strip_resume(fn)
        counts = {r: sum(len(g.collectives) for g in gs) for r, gs in sides.items()}
        missing = [r for r in labels if not sides[r]]
        if missing:
            have = [r for r in labels if sides[r]]
            g0 = sides[have[0]][0]
            listing = ", ".join(c.text() for c in g0.collectives[:4])
            if len(g0.collectives) > 4:
                listing += ", ..."
            msg = (
                f"`{name}` compiles a graph with collectives ({listing}; compile "
                f"{g0.compile_id}) on {ranks_text(have)} but {ranks_text(missing)} never "
                "compiles it: the collectives run on some ranks only"
            )
            out.append(
                Divergence(
                    kind="collectives",
                    message=msg,
                    counts=counts,
                    values={r: "|".join(map(str, sigs[r])) for r in labels},
                    path=path or None,
                    line=first or None,
                    function=name,
                    compile_id=g0.compile_id,
                    position=1,
                    ops={
                        r: (sides[r][0].collectives[0].text() if sides[r] else "none")
                        for r in labels
                    },
                    sides=_sides({r: sides[r][0] if sides[r] else None for r in labels}),
                )
            )
            continue
        # the first collective where the ranks differ: (compile index, position)
        n_graphs = max(len(gs) for gs in sides.values())
        found = None
        for gi in range(n_graphs):
            seqs = {r: (sides[r][gi].collectives if gi < len(sides[r]) else None) for r in labels}
            longest = max((len(s) for s in seqs.values() if s is not None), default=0)
            for pos in range(longest):
                at = {
                    r: (s[pos].text() if s is not None and pos < len(s) else "none")
                    for r, s in seqs.items()
                }
                if len(set(at.values())) > 1:
                    found = (gi, pos, at, seqs)
                    break
            if found:
                break
        if found is None:
            continue
        gi, pos, at, seqs = found
        groups = _by_value(at)
        odd = [r for _, rs in groups[1:] for r in rs]
        cid = next((sides[r][gi].compile_id for r in rank_order(odd) if gi < len(sides[r])), "")
        # the odd side's collective locates it, else the majority's, else the function
        where_path, where_line = path or None, first or None
        for r in [*rank_order(odd), *rank_order(groups[0][1])]:
            s = seqs[r]
            if s is not None and pos < len(s) and s[pos].line:
                where_path, where_line = s[pos].path, s[pos].line
                break
        sides_txt = "; ".join(f"{v} on {ranks_text(rank_order(rs))}" for v, rs in groups)
        msg = (
            f"`{name}` issues different collectives: the first difference is collective "
            f"#{pos + 1} of compile {cid or '?'}: {sides_txt}"
        )
        out.append(
            Divergence(
                kind="collectives",
                message=msg,
                counts=counts,
                values={r: "|".join(map(str, sigs[r])) for r in labels},
                path=where_path,
                line=where_line,
                function=name,
                compile_id=cid or None,
                position=pos + 1,
                ops=dict(at),
                sides=_sides({r: sides[r][gi] if gi < len(sides[r]) else None for r in labels}),
            )
        )
    return out


# --------------------------------------------------------------------------- comparing


def compare_ranks(ranks: Mapping[str, DynamicResult], joined: DynamicResult) -> list[Divergence]:
    """Every difference between the ranks (the ``spec`` run is not a rank). Ranks that share a
    result object are compared once."""
    ranks = {k: v for k, v in ranks.items() if k != SPEC_RANK}
    if len(ranks) < 2:
        return []
    labels = rank_order(ranks)
    distinct: dict[int, DynamicResult] = {}
    for r in labels:
        distinct.setdefault(id(ranks[r]), ranks[r])
    if len(distinct) < 2:
        return []

    def per_rank(fn: Any) -> dict[str, Any]:
        vals = {i: fn(res) for i, res in distinct.items()}
        return {r: vals[id(ranks[r])] for r in labels}

    items: list[Divergence] = []
    # Breaks: present on some ranks only.
    for b in joined.breaks:
        counts = per_rank(lambda res, b=b: next((x.count for x in res.breaks if x.key == b.key), 0))
        if all(counts.values()):
            continue
        noun = f"graph break `{b.gb_type}`"
        items.append(
            Divergence(
                kind="graph_break",
                message=_detail(counts, noun),
                counts=counts,
                values={r: str(c) for r, c in counts.items()},
                path=b.path or b.loc_path or None,
                line=b.line if b.line is not None else (b.loc_line or None),
                function=b.function or None,
            )
        )
    # Recompiles: a different number per rank.
    for rc in joined.recompiles:
        key = (rc.function, rc.path, rc.line, guard_key(rc.guard))
        counts = per_rank(
            lambda res, key=key: sum(
                x.count
                for x in res.recompiles
                if (x.function, x.path, x.line, guard_key(x.guard)) == key
            )
        )
        if len(set(counts.values())) < 2:
            continue
        noun = f"`{rc.function}` recompiles (guard `{rc.guard}`)"
        items.append(
            Divergence(
                kind="recompile",
                message=_detail(counts, noun),
                counts=counts,
                values={r: str(c) for r, c in counts.items()},
                path=rc.path or rc.code_path or None,
                line=rc.line or rc.code_line or None,
                function=rc.function or None,
            )
        )
    # Compile failures (compilation metrics with a fail_type): on some ranks only.
    fails = per_rank(lambda res: _failures(res.raw))
    for fkey in sorted({k for f in fails.values() for k in f}, key=str):
        counts = {r: fails[r].get(fkey, (0, None))[0] for r in labels}
        if len(set(counts.values())) < 2:
            continue
        fn, path, line, ftype = fkey
        reason = next((fails[r][fkey][1] for r in labels if fkey in fails[r]), None) or ""
        noun = f"compiling `{strip_resume(fn)}` fails ({ftype}{': ' + reason if reason else ''})"
        items.append(
            Divergence(
                kind="compile_failure",
                message=_detail(counts, noun),
                counts=counts,
                values={r: str(c) for r, c in counts.items()},
                path=path or None,
                line=line or None,
                function=strip_resume(fn) or None,
            )
        )
    # Collective schedules per function.
    colls = per_rank(lambda res: graph_collectives(res.raw))
    coll_items = _collective_divergences(colls, labels)
    # Graph counts per user function (resume functions count for the function they resume).
    per_fn: dict[tuple[str, str], dict[str, int]] = {}
    first: dict[tuple[str, str], int] = {}
    counted = per_rank(lambda res: _graph_counts(res.raw, first))
    for r in labels:
        for k2, n in counted[r].items():
            per_fn.setdefault(k2, dict.fromkeys(labels, 0))[r] = n
    flagged = {(d.path, d.function) for d in [*items, *coll_items] if d.path}
    for (path, fn), counts in per_fn.items():
        if len(set(counts.values())) < 2 or (path, fn) in flagged:
            continue
        detail = f"`{fn}` compiles a different number of graphs: " + ", ".join(
            f"{c} on {ranks_text(rs)}" for c, rs in sorted(_by_value(counts), reverse=True)
        )
        items.append(
            Divergence(
                kind="graph_count",
                message=detail,
                counts=counts,
                values={r: str(c) for r, c in counts.items()},
                path=path,
                line=first.get((path, fn)) or None,
                function=fn,
            )
        )
    return [*items, *coll_items]


def _failures(raw: Mapping[str, Any]) -> dict[tuple[str, str, int, str], tuple[int, str | None]]:
    out: dict[tuple[str, str, int, str], tuple[int, str | None]] = {}
    for m in raw.get("metrics") or []:
        ftype = m.get("fail_type")
        if not ftype or m.get("limit_hit"):
            continue
        path = str(m.get("fail_path") or m.get("co_filename") or "")
        line = int(m.get("fail_line") or m.get("co_firstlineno") or 0)
        k = (str(m.get("co_name") or ""), path, line, str(ftype))
        reason = str(m.get("fail_reason") or "").strip().splitlines()
        n, _ = out.get(k, (0, None))
        out[k] = (n + 1, reason[0][:160] if reason else None)
    return out


def _graph_counts(
    raw: Mapping[str, Any], first: dict[tuple[str, str], int]
) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for g in raw.get("graphs") or []:
        path = g.get("path")
        if not path:
            continue
        fn = strip_resume(str(g.get("function") or ""))
        k2 = (str(path), fn)
        if fn == g.get("function"):
            first.setdefault(k2, int(g.get("first_line") or 0))
        out[k2] = out.get(k2, 0) + 1
    return out


def group_ranks(labels: Sequence[str], divergences: Sequence[Divergence]) -> list[RankGroup]:
    """Ranks with the same side of every divergence, the largest group first (``same``); each
    other group says where it differs from the largest."""
    labels = rank_order(labels)
    if not divergences:
        return [RankGroup(tuple(labels), True)] if labels else []
    profiles = {r: tuple(d.values.get(r, "") for d in divergences) for r in labels}
    groups = _by_value(profiles)
    main_profile, main = groups[0]
    out = [RankGroup(tuple(rank_order(main)), True)]
    for prof, rs in groups[1:]:
        diffs = []
        for d, mine, theirs in zip(divergences, prof, main_profile):
            if mine == theirs:
                continue
            diffs.append(_difference(d, rank_order(rs)[0], rank_order(main)[0]))
        out.append(RankGroup(tuple(rank_order(rs)), False, tuple(diffs)))
    return out


def _difference(d: Divergence, mine: str, theirs: str) -> str:
    where = f" at {_where(d)}" if d.path else ""
    if d.kind == "collectives":
        return (
            f"collective #{d.position} of `{d.function}` is {d.ops.get(mine, '?')} "
            f"(the others: {d.ops.get(theirs, '?')}){where}"
        )
    what = {
        "graph_break": "graph break",
        "recompile": "recompiles",
        "compile_failure": "compile failures",
        "graph_count": f"graphs of `{d.function}`",
    }.get(d.kind, d.kind)
    if d.kind == "graph_break":
        m = re.search(r"`[^`]*`", d.message)
        what = f"graph break {m.group(0)}" if m else what
    return f"{what}{where}: {d.counts.get(mine, 0)} (the others: {d.counts.get(theirs, 0)})"


def _where(d: Divergence) -> str:
    p = str(d.path or "")
    base = p if not os.path.isabs(p) else p.rsplit(os.sep, 1)[-1]
    return f"{base}:{d.line}" if d.line else base


# --------------------------------------------------------------------------- findings


def divergence_block(divergences: Sequence[Divergence], root: str) -> list[dict[str, Any]]:
    """The JSON ``dynamic.divergence`` list."""
    out = []
    for d in divergences:
        entry: dict[str, Any] = {
            "kind": d.kind,
            "message": d.message,
            "ranks": d.counts,
            "path": relpath(d.path, root) if d.path else None,
            "line": d.line or None,
            "function": d.function or None,
        }
        if d.kind == "collectives":
            entry.update(
                {
                    "compile_id": d.compile_id,
                    "position": d.position,
                    "ops": d.ops,
                    "schedules": [
                        {"ranks": rank_ranges(rs), "collectives": list(sched)}
                        for rs, sched in d.sides
                    ],
                }
            )
        out.append(entry)
    return out


def divergence_findings(
    divergences: Sequence[Divergence], catalog: Catalog, *, root: str
) -> list[Finding]:
    """A ``CL005`` finding for each divergence with a location, wherever its file is: a file
    not on this machine gets a finding at the trace's path and line, marked as such."""
    rule = catalog.get(DIVERGENCE_RULE)
    findings: list[Finding] = []
    for d in divergences:
        path = str(d.path or "")
        if not path or not d.line or is_library(path):
            continue
        npath = norm_path(path, root)
        line = int(d.line)
        detail = d.message
        if not os.path.isfile(npath):
            detail += " (the trace's path: the file is not on this machine)"
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
                function=str(d.function or ""),
                line_text=_line_text(npath, line),
                count=1 if d.kind == "collectives" else sum(d.counts.values()),
                observed=True,
            )
        )
    return findings
