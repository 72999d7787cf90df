"""Speed and memory of ``compilelint check --trace`` on a large generated trace folder.

Generates a TORCH_TRACE folder of ``--ranks`` files totalling ``--size-mb`` (default 8 ranks,
1024 MB) from the committed real traces (``fixtures/trace/torch2.11-gpu``: a DDP model compiled
with inductor on an H100), each rank repeating them with fresh frame ids and, between the
repeats, the bulk a real inductor trace carries and compilelint skips (``chromium_event``
records with multi-line payloads, cache-miss artifacts, output code), in about the proportions
of the untrimmed trace (compilelint reads ~10% of the bytes: compilation metrics, break and
recompile reasons, graph source lines). Then times ``compilelint check fixtures/trace/model
--trace DIR --format json`` in a child process and reports its wall time and peak RSS.

python benchmarks/bench_trace.py [--size-mb 1024] [--ranks 8] [--gzip] [--dir DIR] [--keep]
python benchmarks/bench_trace.py --real DIR [--repeat 3]   # a recorded folder as it is
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "fixtures" / "trace" / "torch2.11-gpu"
FRAME_RE = re.compile(rb'"frame_id": (\d+)')
HEAD = b"V1124 23:16:00.000000 756 torch/_dynamo/utils.py:2126] "


def _filler(i: int) -> bytes:
    """~110 KB of records compilelint skips, shaped like an inductor trace's bulk."""
    parts: list[bytes] = []
    for k in range(40):  # chromium events: a small header, a ~2 KB JSON payload
        parts.append(
            HEAD + b'{"chromium_event": {}, "rank": 0, "frame_id": %d, "frame_compile_id": 0, '
            b'"attempt": 0, "has_payload": "%032x"}\n' % (i, i * 100 + k)
        )
        parts.append(
            b"\t{\n"
            + b"".join(
                b'\t"%s": "%s",\n' % (key, b"v" * 60)
                for key in (b"name", b"ts", b"args", b"ph", b"cat", b"tid", b"pid") * 4
            )
            + b"\t}\n"
        )
    for name in (b"fx_graph_cache_miss", b"aotautograd_cache_miss", b"inductor_output_code"):
        parts.append(
            HEAD + b'{"artifact": {"name": "%s", "encoding": "json"}, "frame_id": %d, '
            b'"frame_compile_id": 0, "has_payload": "x"}\n' % (name, i)
        )
        parts.append(b"\t    buf0 = empty_strided_cuda((4, 8), (8, 1), torch.float32)\n" * 160)
    return b"".join(parts)


def generate(out: Path, size_mb: int, ranks: int, gz: bool) -> int:
    """Write the trace folder; returns its size in bytes."""
    out.mkdir(parents=True, exist_ok=True)
    per_rank = size_mb * (1 << 20) // ranks
    total = 0
    for r in range(ranks):
        src = sorted(SRC.glob(f"*rank_{r % 2}*"))[0]
        raw = gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes()
        raw = raw.replace(b'"rank": %d' % (r % 2), b'"rank": %d' % r)
        name = out / f"dedicated_log_torch_trace_rank_{r}_bench.log"
        opener = gzip.open(str(name) + ".gz", "wb", compresslevel=1) if gz else open(name, "wb")
        written = 0
        rep = 0
        with opener as fh:
            while written < per_rank:
                base = rep * 1000

                def shift(m: re.Match[bytes], base: int = base) -> bytes:
                    return b'"frame_id": %d' % (int(m.group(1)) + base)

                block = FRAME_RE.sub(shift, raw) + _filler(base)
                fh.write(block)
                written += len(block)
                rep += 1
        total += written
    return total


def _plain_size(p: Path) -> int:
    """Bytes of the file uncompressed, streamed (a child forked later must not inherit a big
    heap: its peak RSS would count it)."""
    if p.suffix != ".gz":
        return p.stat().st_size
    n = 0
    with gzip.open(p, "rb") as fh:
        while chunk := fh.read(1 << 22):
            n += len(chunk)
    return n


LOC_RE = re.compile(rb"^\tGraph break in user code at (.+):(\d+)$", re.M)


def break_lines(folder: Path) -> set[tuple[str, int]]:
    """(file name, line) of every break record's location, by a plain scan of the files."""
    out: set[tuple[str, int]] = set()
    for p in folder.iterdir():
        with gzip.open(p, "rb") if p.suffix == ".gz" else open(p, "rb") as fh:
            for line in fh:
                if line.startswith(b"\tGraph break in user code at "):
                    m = LOC_RE.match(line.rstrip(b"\n"))
                    if m:
                        out.add((os.path.basename(m.group(1).decode()), int(m.group(2))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--gzip", action="store_true", help="write .log.gz files")
    ap.add_argument("--dir", help="generate here (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the generated folder")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--real",
        help="time this recorded trace folder instead of generating one (e.g. one written by "
        "benchmarks/record_transformers_trace.py) and count its break lines found",
    )
    args = ap.parse_args()
    if args.real:
        args.keep = True
        tmp = Path(args.real)
        gen_s = 0.0
        size = sum(_plain_size(p) for p in tmp.iterdir())
    else:
        tmp = Path(args.dir or tempfile.mkdtemp(prefix="compilelint-bench-trace-"))
        t0 = time.perf_counter()
        size = generate(tmp, args.size_mb, args.ranks, args.gzip)
        gen_s = time.perf_counter() - t0
    on_disk = sum(p.stat().st_size for p in tmp.iterdir())
    cmd = [sys.executable, "-m", "compilelint", "check", "fixtures/trace/model"]
    cmd += ["--trace", str(tmp), "--format", "json", "--no-cache", "--fail-on", "never"]
    runs = []
    cpu = []
    load = [round(x, 1) for x in os.getloadavg()]
    try:
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t1 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False)
            wall = time.perf_counter() - t1
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if proc.returncode != 0:
                sys.exit(f"bench_trace: compilelint failed: {proc.stderr.decode()[-2000:]}")
            runs.append(wall)
        data = json.loads(proc.stdout)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    dyn = data["dynamic"]
    found_lines = None
    if args.real:  # the break lines the trace names (a plain scan), and how many were reported
        want = break_lines(tmp)
        # a break in library code is reported at the user's call, the library line in its frames
        got = {
            (os.path.basename(str(b["path"])), int(b["line"]))
            for b in dyn["breaks"]
            if b.get("path") and b.get("line")
        }
        # a break at a path not on this machine is a finding at the trace's path and line
        got |= {
            (os.path.basename(f["path"]), int(f["line"]))
            for f in data["findings"]
            if f["stage"] != "static" and f["rule"] != "CL003"
        }
        for b in dyn["breaks"]:
            where = str(b.get("torch_location") or "")
            path, _, line = where.rpartition(":")
            if line.isdigit():
                got.add((os.path.basename(path), int(line)))
        found_lines = f"{len(want & got)}/{len(want)}"
    result = {
        "trace_mb": round(size / (1 << 20)),
        "on_disk_mb": round(on_disk / (1 << 20)),
        "ranks": len([r for r in dyn.get("ranks") or {} if r != "spec"]),
        "gzip": args.gzip or any(p.suffix == ".gz" for p in tmp.iterdir()),
        "cpus": os.cpu_count(),
        "generate_s": round(gen_s, 1),
        "check_s": [round(w, 2) for w in runs],
        "mb_per_s": round(size / (1 << 20) / min(runs), 1),
        # CPU seconds of the check (all its processes): on a shared machine the wall time
        # depends on the load; MB per CPU-second times the cores is the idle-machine bound
        "cpu_s": [round(c, 2) for c in cpu],
        "mb_per_cpu_s": round(size / (1 << 20) / min(cpu), 1),
        "load_before": load,
        "load_after": [round(x, 1) for x in os.getloadavg()],
        "peak_rss_mb": round(peak_mb),
        "breaks": dyn["graph_break_count"],
        "recompiles": dyn["recompile_count"],
        "findings": len(data["findings"]),
        **({"break_lines_found": found_lines} if found_lines is not None else {}),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
