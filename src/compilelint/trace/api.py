"""``check --trace``: a real run's structured traces, joined with the static findings.

Every rank's trace becomes the same raw record the dynamic stage's child writes (break
messages, recompile reasons, compilation metrics, graphs, traced lines), with the training
machine's paths mapped onto the scanned files (:mod:`compilelint.trace.paths`). All ranks
together (and the ``--input-spec`` run, when there is one) are then parsed, deduplicated and
merged with the static findings exactly like the dynamic stage's own run; counts add up across
ranks, each break and recompile keeps its per-rank counts and the compile time torch spent on
it, and what differs between ranks becomes ``CL005`` findings (:mod:`compilelint.trace.divergence`,
which this module imports and which imports nothing of it). Ranks whose traces record the same
thing (all but timings and frame-id order) share one parsed result, so a 1,000-rank job of a few
distinct behaviours is parsed a few times. Older traces without break records still show their
breaks: a resume function ``torch_dynamo_resume_in_<fn>_at_<line>`` implies one at that line.
Never imports torch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from compilelint.catalog import Catalog, load_catalog
from compilelint.cpus import usable_cpus
from compilelint.dynamic.api import DynamicResult, build_result
from compilelint.dynamic.capture import guard_key, parse_break_message, split_recompile_payload
from compilelint.dynamic.registry import Registry, load_registry
from compilelint.merge import UNKNOWN_BREAK, merge_findings, norm_path
from compilelint.model import FileError, Finding, Report
from compilelint.rank import rank_findings
from compilelint.trace.divergence import (
    SPEC_RANK,
    Divergence,
    RankGroup,
    compare_ranks,
    divergence_block,
    divergence_findings,
    group_ranks,
)
from compilelint.trace.paths import PathMapper
from compilelint.trace.ranges import rank_ranges
from compilelint.trace.reader import (
    RankTrace,
    TraceError,
    find_trace_files,
    rank_of_name,
    read_file,
)

PARALLEL_BYTES = 64 << 20  # read files in worker processes above this much trace in total
RESUME_AT_RE = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+?)_at_(?P<line>\d+)$")
IMPLIED_REASON = f"{UNKNOWN_BREAK} (implied by a resume function: the trace has no break record)"


@dataclass(frozen=True)
class TraceRun:
    """The traces of one ``check --trace``, read and joined."""

    result: DynamicResult  # all ranks (and the spec run) together
    ranks: dict[str, DynamicResult]  # per rank label ("0", "1", ..., "spec")
    traces: dict[str, RankTrace]
    seconds: dict[tuple[str, str, int], float]  # compile seconds per finding key
    divergences: tuple[Divergence, ...] = ()
    groups: tuple[RankGroup, ...] = ()


# --------------------------------------------------------------------------- reading


def _read_one(path: str) -> RankTrace:
    name_rank = rank_of_name(path)
    rt = RankTrace(rank=name_rank if name_rank is not None else -1)
    return read_file(path, rt)


def read_traces(
    paths: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> dict[int, RankTrace]:
    """Every trace file under ``paths``, one :class:`RankTrace` per rank (files of one rank add
    up). Big trace sets are read by worker processes, one file each. Raises :class:`TraceError`."""
    files = find_trace_files(list(paths))
    sizes = {f: os.path.getsize(f) for f in files}
    total = sum(sizes.values())
    done = 0
    parts: list[RankTrace] = []
    workers = jobs if jobs else min(len(files), usable_cpus())
    if workers > 1 and len(files) > 1 and total >= PARALLEL_BYTES:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futs = [pool.submit(_read_one, f) for f in files]
            for fut, f in zip(futs, files):
                parts.append(fut.result())
                done += sizes[f]
                if progress is not None:
                    progress(done, total)
    else:
        for f in files:
            nr = rank_of_name(f)
            rt = RankTrace(rank=nr if nr is not None else -1)
            base = done

            def step(n: int, _b: list[int] = [base]) -> None:  # noqa: B006 - a counter
                _b[0] += n
                if progress is not None:
                    progress(_b[0], total)

            parts.append(read_file(f, rt, step if progress is not None else None))
            done = base + sizes[f]
    ranks: dict[int, RankTrace] = {}
    for rt in parts:
        r = max(rt.rank, 0)
        cur = ranks.get(r)
        if cur is None:
            rt.rank = r
            ranks[r] = rt
            continue
        cur.files += rt.files
        cur.torch = cur.torch or rt.torch
        for k in ("breaks", "recompiles", "metrics", "graphs", "schedules", "starts"):
            getattr(cur, k).extend(getattr(rt, k))
        for p, ls in rt.lines.items():
            cur.lines.setdefault(p, set()).update(ls)
        cur.records += rt.records
        cur.bytes += rt.bytes
        cur.bad_lines += rt.bad_lines
        cur.kinds |= rt.kinds
    if not any(rt.records for rt in ranks.values()):
        raise TraceError(
            f"--trace {', '.join(paths)}: no structured-trace records (is this a TORCH_TRACE log?)"
        )
    return dict(sorted(ranks.items()))


# --------------------------------------------------------------------------- raw records


def rank_raw(rt: RankTrace, mapper: PathMapper, root: str, label: str) -> dict[str, Any]:
    """One rank's trace as the dynamic stage's raw record, paths mapped. Frame ids are made
    unique across ranks (``"1:6"``) so that joining ranks never mixes their frames."""

    def fid(v: Any) -> Any:
        return None if v is None else f"{label}:{v}"

    def mpath(p: Any) -> Any:
        return (mapper.map(p) or p) if isinstance(p, str) else p

    metrics = [
        {**m, "frame_id": fid(m["frame_id"]), "co_filename": mpath(m.get("co_filename"))}
        for m in rt.metrics
    ]
    by_frame: dict[Any, dict[str, Any]] = {}
    by_compile: dict[tuple[Any, Any], dict[str, Any]] = {}
    for m in metrics:
        if m.get("co_name"):
            by_frame.setdefault(m["frame_id"], m)
        by_compile[(m["frame_id"], m.get("frame_compile_id"))] = m
    # a compile with no metrics (older traces): its frame from dynamo_start
    starts = [
        {**st, "frame_id": fid(st["frame_id"]), "co_filename": mpath(st.get("co_filename"))}
        for st in rt.starts
    ]
    for st in starts:
        by_compile.setdefault((st["frame_id"], st.get("frame_compile_id")), st)
        if st.get("co_name"):
            by_frame.setdefault(st["frame_id"], st)
    if "recompile_reasons" in rt.kinds:
        recompiles = [
            {
                **r,
                "payload": [mapper.text(t) for t in split_recompile_payload(str(r["payload"]))],
                "frame_id": fid(r["frame_id"]),
            }
            for r in rt.recompiles
        ]
    else:  # older torch: the reason is only in the compilation metrics
        recompiles = [
            {
                "payload": mapper.text(str(m["recompile_reason"])),
                "frame_id": m["frame_id"],
                "frame_compile_id": m.get("frame_compile_id"),
            }
            for m in metrics
            if m.get("recompile_reason")
        ]
    limit_hits = []
    for m in metrics:
        if m.get("limit_hit"):
            fm = by_frame.get(m["frame_id"]) or m
            limit_hits.append(
                {
                    "message": f"function: '{fm.get('co_name')}' "
                    f"({fm.get('co_filename')}:{fm.get('co_firstlineno')})",
                    "frame_id": m["frame_id"],
                }
            )
    graphs = []
    for g in rt.graphs:
        key = (fid(g["frame_id"]), g.get("frame_compile_id"))
        m = by_compile.get(key) or by_frame.get(key[0]) or {}
        graphs.append(
            {
                "call": 0,
                "phase": "inputs",
                "ops": int(m.get("graph_op_count") or 0),
                "function": m.get("co_name"),
                "path": m.get("co_filename"),
                "first_line": m.get("co_firstlineno"),
                "frame_id": key[0],
                "frame_compile_id": key[1],
                "compile_id": f"{g['frame_id']}/{g.get('frame_compile_id')}",
                "collectives": [
                    {
                        **c,
                        "user": [mpath(c["user"][0]), c["user"][1], c["user"][2]]
                        if c.get("user")
                        else None,
                    }
                    for c in g.get("collectives") or []
                ],
            }
        )
    schedules = [
        {
            "frame_id": fid(s["frame_id"]),
            "frame_compile_id": s.get("frame_compile_id"),
            "compile_id": f"{s['frame_id']}/{s.get('frame_compile_id')}",
            "ops": s["ops"],
        }
        for s in rt.schedules
    ]
    breaks = [
        {**b, "message": mapper.text(str(b["message"])), "frame_id": fid(b["frame_id"])}
        for b in rt.breaks
    ]
    if "dynamo_graph_break_reason" not in rt.kinds:  # an older format: no break records at all
        breaks += implied_breaks([*metrics, *starts], breaks)
    lines: dict[str, list[int]] = {}
    for p, ls in rt.lines.items():
        mp = mapper.map(p)
        if mp:
            lines.setdefault(mp, []).extend(sorted(ls))
    return {
        "torch": rt.torch,
        "device": None,
        "root": root,
        "breaks": breaks,
        "recompiles": recompiles,
        "metrics": metrics,
        "limit_hits": limit_hits,
        "graphs": graphs,
        "schedules": schedules,
        "lines": lines,
    }


def implied_breaks(
    metrics: Sequence[Mapping[str, Any]], breaks: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Breaks an older trace records only as resume functions: torch compiles
    ``torch_dynamo_resume_in_<fn>_at_<line>`` for the code after a graph break at ``<line>``.
    One break per resume function no break record names (its file and line in a record's
    location or traceback); the reason is unknown, and says so. Used only for a trace with no
    break records at all: where torch writes them, a break inside a call is recorded at its
    innermost line, and the caller's resume line would count it twice."""
    named: set[tuple[str, int]] = set()
    for b in breaks:
        msg = str(b.get("message") or "")
        for m in re.finditer(r'File "([^"\n]+)", line (\d+)|user code at (\S+?):(\d+)', msg):
            path = m.group(1) or m.group(3)
            named.add((os.path.basename(path), int(m.group(2) or m.group(4))))
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for metric in metrics:
        r = RESUME_AT_RE.match(str(metric.get("co_name") or ""))
        path = metric.get("co_filename")
        if r is None or not isinstance(path, str):
            continue
        line = int(r.group("line"))
        k = (os.path.basename(path), line)
        if k in named or k in seen:
            continue
        seen.add(k)
        message = (
            f"Graph break in user code at {path}:{line}\n"
            f"Graph Break Reason: {IMPLIED_REASON}\n"
            f"  Explanation: torch compiled {r.group(0)}, the code after a graph break at "
            f"line {line}; the trace has no record of the break itself\n"
            f"User code traceback:\n"
            f'  File "{path}", line {line}, in {r.group("fn")}\n'
        )
        out.append(
            {"message": message, "frame_id": None, "frame_compile_id": None, "implied": True}
        )
    return out


def _join_raw(raws: Mapping[str, Mapping[str, Any]], root: str) -> dict[str, Any]:
    out: dict[str, Any] = {"torch": None, "device": None, "root": root, "lines": {}}
    for k in ("breaks", "recompiles", "metrics", "limit_hits", "graphs", "schedules"):
        out[k] = [x for raw in raws.values() for x in raw.get(k) or []]
    for raw in raws.values():
        out["torch"] = out["torch"] or raw.get("torch")
        out["device"] = out["device"] or raw.get("device")
        for p, ls in (raw.get("lines") or {}).items():
            out["lines"].setdefault(p, []).extend(ls)
    return out


def _spec_raw(res: DynamicResult, root: str) -> dict[str, Any]:
    """The ``--input-spec`` run's raw record, frame ids made unique like a rank's."""
    raw = dict(res.raw)
    raw_root = str(raw.get("root") or root)

    def remap(x: Any) -> Any:
        return x.replace(raw_root, root) if isinstance(x, str) and raw_root != root else x

    def fid(v: Any) -> Any:
        return None if v is None else f"{SPEC_RANK}:{v}"

    for k in ("breaks", "recompiles", "metrics", "graphs"):
        raw[k] = [
            {
                **x,
                "frame_id": fid(x.get("frame_id")),
                **{f: remap(x[f]) for f in ("message", "co_filename", "path") if f in x},
                **({"payload": remap(x["payload"])} if isinstance(x.get("payload"), str) else {}),
            }
            for x in raw.get(k) or []
            if isinstance(x, dict)
        ]
    raw["lines"] = {remap(p): ls for p, ls in (raw.get("lines") or {}).items()}
    raw["root"] = root
    return raw


# --------------------------------------------------------------------------- joining


def compile_seconds(
    raw: Mapping[str, Any], registry: Registry
) -> tuple[dict[tuple[str, str, int], float], dict[tuple[str, int], float]]:
    """Compile seconds torch spent on the compiles that ended in each break (by break key) and
    on each recompile (by the recompiled code's file and first line)."""
    secs = {
        (m.get("frame_id"), m.get("frame_compile_id")): float(m.get("seconds") or 0.0)
        for m in raw.get("metrics") or []
    }
    by_break: dict[tuple[str, str, int], float] = {}
    seen: set[tuple[Any, Any, tuple[str, str, int]]] = set()
    for b in raw.get("breaks") or []:
        p = parse_break_message(str(b.get("message", "")), registry)
        key = (p.gb_type, p.loc_path, p.loc_line)
        ck = (b.get("frame_id"), b.get("frame_compile_id"), key)
        if ck in seen:  # one compile reports a break once per attempt: count its time once
            continue
        seen.add(ck)
        by_break[key] = by_break.get(key, 0.0) + secs.get(ck[:2], 0.0)
    by_code: dict[tuple[str, int], float] = {}
    frames = {m.get("frame_id"): m for m in raw.get("metrics") or [] if m.get("co_name")}
    for r in raw.get("recompiles") or []:
        m = frames.get(r.get("frame_id"))
        if not m:
            continue
        k = (str(m.get("co_filename")), int(m.get("co_firstlineno") or 0))
        by_code[k] = by_code.get(k, 0.0) + secs.get(
            (r.get("frame_id"), r.get("frame_compile_id")), 0.0
        )
    return by_break, by_code


def join_traces(
    traces: Mapping[int, RankTrace],
    files: Sequence[str],
    *,
    root: str,
    trace_roots: list[tuple[str, str]] | None = None,
    spec_result: DynamicResult | None = None,
    registry: Registry | None = None,
) -> TraceRun:
    registry = registry if registry is not None else load_registry()
    root = os.path.realpath(root)
    mapper = PathMapper(files, trace_roots)
    raws: dict[str, dict[str, Any]] = {
        str(r): rank_raw(rt, mapper, root, str(r)) for r, rt in traces.items()
    }
    if spec_result is not None and spec_result.raw:
        raws[SPEC_RANK] = _spec_raw(spec_result, root)
    per_rank: dict[str, DynamicResult] = {}
    by_print: dict[str, DynamicResult] = {}
    for label, raw in raws.items():
        fp = "spec" if label == SPEC_RANK else rank_fingerprint(traces[int(label)])
        if fp not in by_print:
            by_print[fp] = build_result(raw, root, registry)
        per_rank[label] = by_print[fp]
    joined = _join_raw(raws, root)
    result = build_result(joined, root, registry)
    by_break, by_code = compile_seconds(joined, registry)
    block = result.block
    block["source"] = "trace"
    block["traces"] = sorted({f for rt in traces.values() for f in rt.files})
    block["seconds"] = round(sum(float(m.get("seconds") or 0.0) for m in joined["metrics"]), 3)
    block["compile_seconds"] = block["seconds"]
    block["ranks"] = {
        label: {
            "torch": raws[label].get("torch"),
            "graphs": res.block.get("graph_count", 0),
            "graph_breaks": res.block.get("graph_break_count", 0),
            "recompiles": res.block.get("recompile_count", 0),
            "hit_recompile_limit": bool(res.block.get("hit_recompile_limit")),
            "compile_seconds": round(
                sum(float(m.get("seconds") or 0.0) for m in raws[label]["metrics"]), 3
            ),
            **(
                {"records": traces[int(label)].records, "bytes": traces[int(label)].bytes}
                if label != SPEC_RANK
                else {}
            ),
        }
        for label, res in per_rank.items()
    }
    if spec_result is not None:
        block["spec"] = {
            k: spec_result.block.get(k) for k in ("mode", "device", "seconds", "error")
        }
        if spec_result.error:
            block["spec_error"] = spec_result.error
    for bj, b in zip(block["breaks"], result.breaks):
        once = {
            id(res): next((x.count for x in res.breaks if x.key == b.key), 0)
            for res in by_print.values()
        }
        bj["ranks"] = {label: once[id(res)] for label, res in per_rank.items()}
        if b.gb_type == IMPLIED_REASON:
            bj["implied"] = True
        bj["compile_seconds"] = round(by_break.get(b.key, 0.0), 3)
    for rj, r in zip(block["recompiles"], result.recompiles):
        once = {
            id(res): sum(x.count for x in res.recompiles if _rkey(x) == _rkey(r))
            for res in by_print.values()
        }
        rj["ranks"] = {label: once[id(res)] for label, res in per_rank.items()}
        rj["compile_seconds"] = round(
            by_code.get((str(r.code_path), int(r.code_line or 0)), 0.0), 3
        )
    seconds: dict[tuple[str, str, int], float] = {}
    for b in result.breaks:
        if b.path or b.loc_path:
            k = ("break", norm_path(b.path or b.loc_path, root), b.line or b.loc_line)
            seconds[k] = seconds.get(k, 0.0) + by_break.get(b.key, 0.0)
    for r in result.recompiles:
        p = r.path or r.code_path
        if p:
            k = ("recompile", norm_path(p, root), r.line or r.code_line or 0)
            seconds[k] = by_code.get((str(r.code_path), int(r.code_line or 0)), 0.0)
    divergences = compare_ranks(per_rank, result)
    labels = [k for k in per_rank if k != SPEC_RANK]
    groups = group_ranks(labels, divergences) if len(labels) > 1 else []
    for label, row in block["ranks"].items():
        if label != SPEC_RANK:
            row["collectives"] = sum(
                len(g.get("collectives") or []) for g in raws[label].get("graphs") or []
            )
            row["schedules"] = len(raws[label].get("schedules") or [])
    return TraceRun(
        result=result,
        ranks=per_rank,
        traces=dict((str(k), v) for k, v in traces.items()),
        seconds=seconds,
        divergences=tuple(divergences),
        groups=tuple(groups),
    )


def rank_fingerprint(rt: RankTrace) -> str:
    """What a rank's trace records, but for timings: ranks with equal fingerprints behave the
    same and share one parsed result."""
    h = hashlib.blake2b(digest_size=16)
    h.update(
        repr((rt.torch, rt.breaks, rt.recompiles, rt.graphs, rt.schedules, rt.starts)).encode()
    )
    h.update(repr([{k: v for k, v in m.items() if k != "seconds"} for m in rt.metrics]).encode())
    h.update(repr(sorted((p, sorted(ls)) for p, ls in rt.lines.items())).encode())
    return h.hexdigest()


def _rkey(r: Any) -> tuple[str, str | None, int | None, str]:
    return (r.function, r.path, r.line, guard_key(r.guard))


# --------------------------------------------------------------------------- report


def compile_time_part(seconds: float) -> float:
    """Impact points for compile time spent (0 s: 0, 1 s: 8, 10 s: ~28, capped at 30)."""
    return round(min(30.0, 8.0 * math.log2(1.0 + seconds)), 2) if seconds > 0 else 0.0


def rerank(
    ranked: Sequence[Finding],
    why: Sequence[dict[str, Any]],
    seconds: Mapping[tuple[str, str, int], float],
    root: str,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Add the compile time torch spent on each observed finding to its impact; order again."""
    scored = []
    for f, w in zip(ranked, why):
        kind = "recompile" if f.rule == "CL003" else "break"
        s = seconds.get((kind, norm_path(f.path, root), f.line), 0.0) if f.observed else 0.0
        parts = dict(w["parts"])
        pts = compile_time_part(s)
        if pts:
            parts["compile_time"] = pts
        scored.append((round(sum(parts.values()), 2), parts, f, round(s, 3)))
    scored.sort(key=lambda t: (-t[0], t[2].path, t[2].line, t[2].rule))
    out: list[Finding] = []
    out_why: list[dict[str, Any]] = []
    for i, (total, parts, f, s) in enumerate(scored, 1):
        out.append(dataclasses.replace(f, rank=i, impact=total))
        entry = {"rank": i, "rule": f.rule, "path": f.path, "line": f.line, "impact": total}
        entry["parts"] = parts
        if s:
            entry["compile_seconds"] = s
        out_why.append(entry)
    return out, out_why


def add_trace_to_report(
    report: Report,
    run: TraceRun,
    *,
    catalog: Catalog | None = None,
    cwd: str | None = None,
    static: Sequence[Finding] | None = None,
) -> Report:
    """Merge the joined traces into ``report`` like the dynamic stage does (``static``: the
    static findings to merge with, default ``report.findings``)."""
    from compilelint.dynamic.cli import dynamic_summary

    root = os.path.realpath(cwd or os.getcwd())
    cat = catalog or load_catalog()
    res = run.result
    merged = merge_findings(
        static if static is not None else report.findings,
        res.breaks,
        res.recompiles,
        cat,
        root=root,
        reached=res.reached,
        ran=True,
    )
    diverge = divergence_findings(run.divergences, cat, root=root)
    div_block = divergence_block(run.divergences, root)
    ranked, why = rank_findings([*merged, *diverge], res.breaks, root=root)
    ranked, why = rerank(ranked, why, run.seconds, root)
    block = dict(res.block)
    block["summary"] = dynamic_summary(block)
    block["summary"]["ranks"] = len([k for k in block.get("ranks", {}) if k != SPEC_RANK])
    block["summary"]["divergences"] = len(div_block)
    block["divergence"] = div_block
    block["rank_groups"] = [
        {
            "ranks": rank_ranges(g.ranks),
            "count": len(g.ranks),
            "same": g.same,
            "differences": list(g.differences),
        }
        for g in run.groups
    ]
    extra = dict(report.extra)
    extra["dynamic"] = block
    extra["ranking"] = why
    errors = list(report.errors)
    spec_err = block.get("spec_error")
    if isinstance(spec_err, dict):
        errors.append(
            FileError(
                path="--input-spec",
                message=f"dynamic stage failed at {spec_err.get('step')}: {spec_err.get('message')}",
                kind="dynamic",
            )
        )
    by_rule = dict(sorted(Counter(f.rule for f in ranked).items()))
    summary = dataclasses.replace(report.summary, findings=len(ranked), by_rule=by_rule)
    return dataclasses.replace(
        report,
        torch=report.torch or block.get("torch"),
        findings=tuple(ranked),
        errors=tuple(errors),
        summary=summary,
        extra=extra,
    )


def trace_progress_bar() -> Any:  # pragma: no cover - needs a terminal
    """A rich progress bar over trace bytes on stderr (a terminal only)."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    prog = Progress(TextColumn("reading traces"), BarColumn(), DownloadColumn(), transient=True)
    state: dict[str, Any] = {"t": time.monotonic()}

    class _P:
        def __call__(self, done: int, total: int) -> None:
            if "task" not in state:
                prog.start()
                state["task"] = prog.add_task("trace", total=total)
            prog.update(state["task"], completed=done)

        def close(self) -> None:
            if "task" in state:
                prog.stop()

    return _P() if sys.stderr.isatty() else None
