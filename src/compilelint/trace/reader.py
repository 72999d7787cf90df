"""Stream torch structured-trace logs (``TORCH_TRACE=dir``) into plain per-rank records.

A trace file holds one record per header line::

    V1124 22:54:23.059000 20557 torch/_dynamo/symbolic_convert.py:5098] {"artifact": ...}

followed by its payload, one line per payload line, each starting with a tab. The reader keeps
only what compilelint needs (graph-break reasons, recompile reasons, compilation metrics,
output-graph source lines, the torch version) and drops everything else while streaming, so a
trace of many gigabytes is read in bounded memory: a payload it keeps is capped at
:data:`PAYLOAD_CAP` bytes. gzip-compressed files (``.gz``, or any file starting with the gzip
magic) are read the same way. Never imports torch; record kinds are feature-detected (a record
kind torch no longer writes is simply absent).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

PAYLOAD_CAP = 1 << 20  # bytes kept of one payload (a break reason is a few KB)
READ_BUFFER = 1 << 20
PROGRESS_RECORDS = 2048  # report progress every this many records
RANK_FILE_RE = re.compile(r"rank_(\d+)")
TRACE_NAME_RE = re.compile(r"(?:^|_)torch_trace|\.log(?:\.gz)?$")
GRAPH_FILE_RE = re.compile(rb"# File: (.+?):(\d+) in ")
LIMIT_RE = re.compile(r"recompile.limit|cache.size.limit|cache_size_limit", re.I)

# First JSON key of a header line -> whether the reader looks at the record at all.
WANTED_KINDS = frozenset({b"artifact", b"compilation_metrics", b"dynamo_output_graph"})
WANTED_ARTIFACTS = frozenset({"dynamo_graph_break_reason", "recompile_reasons", "torch_version"})


class TraceError(Exception):
    """A trace path that cannot be read (one line, no traceback)."""


@dataclass
class RankTrace:
    """What one rank's trace (one or more files) recorded, as plain data."""

    rank: int
    files: list[str] = field(default_factory=list)
    torch: str | None = None
    breaks: list[dict[str, Any]] = field(default_factory=list)
    recompiles: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    graphs: list[dict[str, Any]] = field(default_factory=list)
    lines: dict[str, set[int]] = field(default_factory=dict)
    records: int = 0
    bytes: int = 0
    bad_lines: int = 0
    kinds: set[str] = field(default_factory=set)  # record kinds seen (feature detection)
    texts: dict[str, str] = field(default_factory=dict, repr=False)  # one copy of each payload


def find_trace_files(paths: list[str]) -> list[str]:
    """Every trace file under ``paths`` (files as given; folders walked), sorted."""
    out: list[str] = []
    seen: set[str] = set()
    for p in paths:
        if os.path.isfile(p):
            cands = [p]
        elif os.path.isdir(p):
            cands = []
            for d, dirs, files in os.walk(p):
                dirs.sort()
                cands += [
                    os.path.join(d, f)
                    for f in sorted(files)
                    if TRACE_NAME_RE.search(f) and not f.startswith(".")
                ]
            if not cands:
                raise TraceError(f"--trace {p}: no trace files (*.log, *.log.gz) in this folder")
        else:
            raise TraceError(f"--trace {p}: no such file or folder")
        for c in cands:
            key = os.path.realpath(c)
            if key not in seen:
                seen.add(key)
                out.append(c)
    return out


def rank_of_name(path: str) -> int | None:
    m = RANK_FILE_RE.search(os.path.basename(path))
    return int(m.group(1)) if m else None


def open_trace(path: str) -> tuple[IO[bytes], IO[bytes]]:
    """The file as a binary stream, decompressing gzip (detected by its magic bytes), and the
    underlying file (its position is the progress through the file)."""
    try:
        fh = open(path, "rb", buffering=READ_BUFFER)
    except OSError as exc:
        raise TraceError(f"--trace {path}: {exc.strerror or exc}") from None
    magic = fh.peek(2)[:2]
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=fh, mode="rb"), fh  # type: ignore[return-value]
    return fh, fh


def _kind(line: bytes, start: int) -> bytes:
    """The first JSON key of a header's metadata (``artifact``, ``compilation_metrics``...)."""
    end = line.find(b'"', start + 2)
    return line[start + 2 : end] if end > 0 else b""


def read_file(
    path: str, into: RankTrace, progress: Callable[[int], None] | None = None
) -> RankTrace:
    """Stream one trace file into ``into`` (records of several files of one rank add up)."""
    fh, raw = open_trace(path)
    into.files.append(path)
    at = 0
    keep: str | None = None  # what the current payload is kept for
    payload: list[bytes] = []
    size = 0
    meta: dict[str, Any] = {}
    graph_lines: dict[str, set[int]] = into.lines

    def finish() -> None:
        if keep is None:
            return
        text = b"".join(payload).decode("utf-8", errors="replace")
        _store(into, keep, meta, into.texts.setdefault(text, text))

    try:
        with raw, fh:
            for line in fh:
                if line[:1] == b"\t":
                    if keep is None:
                        continue
                    if keep == "graph":
                        if b"# File: " in line:
                            m = GRAPH_FILE_RE.search(line)
                            if m:
                                p = m.group(1).decode("utf-8", errors="replace")
                                graph_lines.setdefault(p, set()).add(int(m.group(2)))
                        continue
                    if size < PAYLOAD_CAP:
                        payload.append(line[1:])
                        size += len(line)
                    continue
                finish()
                keep = None
                if progress is not None and not into.records % PROGRESS_RECORDS:
                    pos = raw.tell()
                    progress(pos - at)
                    at = pos
                i = line.find(b"] {")
                if i < 0:
                    if line.strip():
                        into.bad_lines += 1
                    continue
                into.records += 1
                kind = _kind(line, i + 2)
                if kind not in WANTED_KINDS:
                    continue
                try:
                    meta = json.loads(line[i + 2 :])
                except ValueError:
                    into.bad_lines += 1
                    continue
                if not isinstance(meta, dict):
                    continue
                keep = _header(into, kind.decode(), meta)
                payload = []
                size = 0
            finish()
            into.bytes += fh.tell()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TraceError(f"--trace {path}: cannot read: {exc}") from None
    if progress is not None:
        progress(os.path.getsize(path) - at)
    return into


def _header(into: RankTrace, kind: str, meta: dict[str, Any]) -> str | None:
    """Handle a header; return what its payload is kept for (None: dropped)."""
    if into.rank < 0 and isinstance(meta.get("rank"), int):
        into.rank = meta["rank"]
    if kind == "artifact":
        art = meta.get("artifact")
        name = art.get("name") if isinstance(art, dict) else None
        if name in WANTED_ARTIFACTS:
            into.kinds.add(str(name))
            return str(name)
        return None
    into.kinds.add(kind)
    if kind == "compilation_metrics":
        m = meta.get("compilation_metrics")
        if isinstance(m, dict):
            _metrics(into, meta, m)
        return None
    if kind == "dynamo_output_graph":
        into.graphs.append(
            {
                "frame_id": meta.get("frame_id"),
                "frame_compile_id": meta.get("frame_compile_id"),
            }
        )
        return "graph"
    return None


def _metrics(into: RankTrace, meta: dict[str, Any], m: dict[str, Any]) -> None:
    fid, fcid = meta.get("frame_id"), meta.get("frame_compile_id")
    cid = m.get("compile_id")
    if (fid is None or fcid is None) and isinstance(cid, str) and "/" in cid:
        with_ids = cid.split("/")
        if with_ids[0].isdigit() and with_ids[1].isdigit():
            fid, fcid = int(with_ids[0]), int(with_ids[1])
    fail = str(m.get("fail_reason") or "")
    secs = m.get("entire_frame_compile_time_s")
    into.metrics.append(
        {
            "frame_id": fid,
            "frame_compile_id": fcid,
            "co_name": m.get("co_name"),
            "co_filename": m.get("co_filename"),
            "co_firstlineno": m.get("co_firstlineno"),
            "graph_op_count": m.get("graph_op_count"),
            "fail_type": m.get("fail_type"),
            "fail_reason": fail[:2000] or None,
            "recompile_reason": m.get("recompile_reason"),
            "seconds": float(secs) if isinstance(secs, (int, float)) else 0.0,
            "limit_hit": bool(LIMIT_RE.search(fail)),
        }
    )
    if into.torch is None and isinstance(m.get("pytorch_version"), str):
        into.torch = m["pytorch_version"]


def _store(into: RankTrace, keep: str, meta: dict[str, Any], text: str) -> None:
    ids = {"frame_id": meta.get("frame_id"), "frame_compile_id": meta.get("frame_compile_id")}
    if keep == "dynamo_graph_break_reason":
        into.breaks.append({"message": text, **ids})
    elif keep == "recompile_reasons":
        into.recompiles.append({"payload": text, **ids})
    elif keep == "torch_version" and into.torch is None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        if isinstance(data, dict) and isinstance(data.get("pytorch_version"), str):
            into.torch = data["pytorch_version"]
