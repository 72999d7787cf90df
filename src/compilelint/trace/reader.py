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

import json
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

PAYLOAD_CAP = 1 << 20  # bytes kept of one payload (a break reason is a few KB)
READ_BUFFER = 4 << 20  # bytes read at a time (of the file on disk)
GZIP_MAGIC = b"\x1f\x8b"
LINE_START_RE = re.compile(rb"\n(?=[^\t\n])")  # a line that is not a payload line
RANK_FILE_RE = re.compile(r"rank_(\d+)")
TRACE_NAME_RE = re.compile(r"(?:^|_)torch_trace|\.log(?:\.gz)?$")
GRAPH_FILE_RE = re.compile(rb"# File: (.+?):(\d+) in ([^\n]*)")
# A collective in an output graph: torch.ops._c10d_functional.all_reduce(mul, 'sum', '0')
COLLECTIVE_RE = re.compile(rb"torch\.ops\._c10d_functional\.(\w+)(?:\.default)?\(([^)]*)\)")
GROUP_RE = re.compile(rb"'([^']*)'")
NOT_COLLECTIVES = frozenset({b"wait_tensor"})
LIBRARY_MARKERS = ("site-packages", "dist-packages")
LIMIT_RE = re.compile(r"recompile.limit|cache.size.limit|cache_size_limit", re.I)

# First JSON key of a header line -> whether the reader looks at the record at all.
WANTED_KINDS = frozenset(
    {b"artifact", b"compilation_metrics", b"dynamo_output_graph", b"dynamo_start", b"str"}
)
WANTED_ARTIFACTS = frozenset(
    {
        "dynamo_graph_break_reason",
        "recompile_reasons",
        "torch_version",
        "inductor_collective_schedule",
    }
)


WANTED_ARTIFACT_NAMES = frozenset(n.encode() for n in WANTED_ARTIFACTS)
ARTIFACT_NAME_RE = re.compile(rb'\{"artifact": \{"name": "([^"]*)"')


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
    schedules: list[dict[str, Any]] = field(default_factory=list)  # inductor collectives
    starts: list[dict[str, Any]] = field(default_factory=list)  # dynamo_start: compiled frames
    strings: dict[int, str] = field(default_factory=dict, repr=False)  # interned file names
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


def _chunks(path: str) -> Iterator[tuple[bytes, int]]:
    """The file's bytes in large chunks (gzip, detected by its magic bytes, decompressed), each
    with the number of bytes of the file on disk it consumed (for progress)."""
    try:
        fh = open(path, "rb", buffering=0)
    except OSError as exc:
        raise TraceError(f"--trace {path}: {exc.strerror or exc}") from None
    with fh:
        first = fh.read(READ_BUFFER)
        if first[:2] != GZIP_MAGIC:
            data = first
            while data:
                yield data, len(data)
                data = fh.read(READ_BUFFER)
            return
        dec = zlib.decompressobj(wbits=31)
        data = first
        while data:
            # at most READ_BUFFER bytes out at a time: memory stays flat at any ratio
            pending, consumed = data, len(data)
            while pending:
                out = dec.decompress(pending, READ_BUFFER)
                pending = dec.unconsumed_tail
                if dec.eof and dec.unused_data:  # concatenated gzip members
                    pending = dec.unused_data
                    dec = zlib.decompressobj(wbits=31)
                yield out, consumed
                consumed = 0
            data = fh.read(READ_BUFFER)
        tail = dec.flush()
        if not dec.eof:
            raise TraceError(f"--trace {path}: cannot read: the gzip stream is cut short")
        if tail:
            yield tail, 0


def _kind(line: bytes, start: int) -> bytes:
    """The first JSON key of a header's metadata (``artifact``, ``compilation_metrics``...)."""
    end = line.find(b'"', start + 2)
    return line[start + 2 : end] if end > 0 else b""


class _Record:
    """The record whose payload is being read: what it is kept for and its payload so far."""

    __slots__ = ("graph", "keep", "last_user", "lines", "meta", "parts", "size")

    def __init__(
        self,
        keep: str,
        meta: dict[str, Any],
        graph: dict[str, Any] | None,
        lines: dict[str, set[int]],
    ) -> None:
        self.keep = keep
        self.meta = meta
        self.parts: list[bytes] = []
        self.size = 0
        self.graph = graph  # an output graph: its source lines and collectives are read
        self.lines = lines
        self.last_user: tuple[str, int, str] | None = None


def read_file(
    path: str, into: RankTrace, progress: Callable[[int], None] | None = None
) -> RankTrace:
    """Stream one trace file into ``into`` (records of several files of one rank add up).

    The file is scanned a chunk at a time: header lines are found by one regular-expression
    search per chunk (a payload line starts with a tab), and only the payloads of kept records
    are looked at, so skipped records cost no Python work per payload line."""
    into.files.append(path)
    cur: _Record | None = None
    carry = b""
    total = 0
    try:
        for chunk, consumed in _chunks(path):
            data = carry + chunk if carry else chunk
            end = data.rfind(b"\n") + 1
            carry = data[end:]
            if end:
                cur = _scan(into, data, end, cur)
            total += end
            if progress is not None:
                progress(consumed)
        if carry:
            cur = _scan(into, carry + b"\n", len(carry) + 1, cur)
            total += len(carry)
        _finish(into, cur)
        into.bytes += total
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"--trace {path}: cannot read: {exc}") from None
    return into


def _scan(into: RankTrace, data: bytes, end: int, cur: _Record | None) -> _Record | None:
    """Handle the complete lines ``data[:end]``; ``cur``: the record whose payload they continue."""
    starts = [0] if data[:1] not in (b"\t", b"\n") else []
    starts += [m.start() + 1 for m in LINE_START_RE.finditer(data, 0, end - 1)]
    prev = 0
    for s in starts:
        if cur is not None and s > prev:
            _payload(cur, data[prev:s])
        nl = data.find(b"\n", s, end)
        nl = end - 1 if nl < 0 else nl
        _finish(into, cur)
        cur = _head(into, data, s, nl)
        prev = nl + 1
    if cur is not None and end > prev:
        _payload(cur, data[prev:end])
    return cur


def _head(into: RankTrace, data: bytes, s: int, nl: int) -> _Record | None:
    """A header line ``data[s:nl]``: the record to keep its payload for, or None."""
    i = data.find(b"] {", s, nl)
    if i < 0:
        if data[s:nl].strip():
            into.bad_lines += 1
        return None
    into.records += 1
    kind = _kind(data, i + 2)
    if kind not in WANTED_KINDS:
        return None
    if kind == b"artifact":  # most artifacts are skipped: look at the name before parsing
        m = ARTIFACT_NAME_RE.match(data, i + 2, nl)
        if m is not None and m.group(1) not in WANTED_ARTIFACT_NAMES:
            return None
    try:
        meta = json.loads(data[i + 2 : nl])
    except ValueError:
        into.bad_lines += 1
        return None
    if not isinstance(meta, dict):
        return None
    keep = _header(into, kind.decode(), meta)
    if keep is None:
        return None
    return _Record(keep, meta, into.graphs[-1] if keep == "graph" else None, into.lines)


def _payload(rec: _Record, part: bytes) -> None:
    if rec.graph is not None:
        _graph_part(rec, part)
        return
    room = PAYLOAD_CAP - rec.size
    if room <= 0:
        return
    if len(part) > room:  # cut at a line end
        cut = part.rfind(b"\n", 0, room) + 1
        part = part[: cut or room]
    rec.parts.append(part)
    rec.size += len(part)


def _graph_part(rec: _Record, part: bytes) -> None:
    """The ``# File: path:line`` comments of an output graph, and its collectives (the op, its
    process group, the last user line before it and that line's code)."""
    lines = rec.lines
    if b"_c10d_functional." not in part:
        last = None
        for m in GRAPH_FILE_RE.finditer(part):
            p = m.group(1).decode("utf-8", errors="replace")
            lines.setdefault(p, set()).add(int(m.group(2)))
            if not _is_library(p):
                last = m
        if last is not None:
            rec.last_user = (
                last.group(1).decode("utf-8", "replace"),
                int(last.group(2)),
                last.group(3).decode("utf-8", "replace"),
            )
        return
    assert rec.graph is not None
    for ln in part.split(b"\n"):
        f = GRAPH_FILE_RE.search(ln)
        if f:
            p = f.group(1).decode("utf-8", errors="replace")
            lines.setdefault(p, set()).add(int(f.group(2)))
            if not _is_library(p):
                rec.last_user = (p, int(f.group(2)), f.group(3).decode("utf-8", "replace"))
            continue
        c = COLLECTIVE_RE.search(ln)
        if c is None or c.group(1) in NOT_COLLECTIVES:
            continue
        group = GROUP_RE.findall(c.group(2))
        rec.graph["collectives"].append(
            {
                "op": c.group(1).decode(),
                "group": group[-1].decode("utf-8", "replace") if group else None,
                "user": rec.last_user,
            }
        )


def _is_library(path: str) -> bool:
    return any(m in path for m in LIBRARY_MARKERS)


def _finish(into: RankTrace, rec: _Record | None) -> None:
    if rec is None or rec.graph is not None:
        return
    raw = b"".join(rec.parts)
    if raw[:1] == b"\t":
        raw = raw[1:]
    text = raw.replace(b"\n\t", b"\n").decode("utf-8", errors="replace")
    _store(into, rec.keep, rec.meta, into.texts.setdefault(text, text))


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
    if kind == "str":  # the interned file names dynamo_start's stacks refer to
        v = meta.get("str")
        if isinstance(v, list) and len(v) == 2 and isinstance(v[1], int):
            into.strings[v[1]] = str(v[0])
        return None
    if kind == "dynamo_start":  # the frame a compile starts in (older traces: no metrics)
        stack = (meta.get("dynamo_start") or {}).get("stack")
        if isinstance(stack, list) and stack and isinstance(stack[-1], dict):
            top = stack[-1]
            fname = top.get("filename")
            path = into.strings.get(fname) if isinstance(fname, int) else fname
            into.starts.append(
                {
                    "frame_id": meta.get("frame_id"),
                    "frame_compile_id": meta.get("frame_compile_id"),
                    "co_name": top.get("name"),
                    "co_filename": path if isinstance(path, str) else None,
                    "co_firstlineno": top.get("line"),
                }
            )
        return None
    if kind == "dynamo_output_graph":
        into.graphs.append(
            {
                "frame_id": meta.get("frame_id"),
                "frame_compile_id": meta.get("frame_compile_id"),
                "collectives": [],
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
            "fail_path": m.get("fail_user_frame_filename"),
            "fail_line": m.get("fail_user_frame_lineno"),
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
    elif keep == "inductor_collective_schedule":
        try:
            ops = json.loads(text)
        except ValueError:
            into.bad_lines += 1
            return
        if isinstance(ops, list):
            into.schedules.append({**ids, "ops": [str(o) for o in ops if isinstance(o, str) and o]})
    elif keep == "torch_version" and into.torch is None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        if isinstance(data, dict) and isinstance(data.get("pytorch_version"), str):
            into.torch = data["pytorch_version"]
