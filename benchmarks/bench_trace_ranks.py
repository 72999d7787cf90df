"""A 1,000-rank job on one screen: ``check --trace`` on a synthesised folder of many ranks.

Synthesises a TORCH_TRACE folder of ``--ranks`` rank files from a committed two-rank trace
(default ``fixtures/trace/torch2.13-collectives``: rank 1 runs an extra all_reduce and compiles a
graph rank 0 never compiles): every rank is a copy of the trace's rank 0, except the ranks
given by ``--odd`` (default the middle one), which are copies of its rank 1; each file's
``"rank"`` fields say its own rank. Then runs ``compilelint check fixtures/trace/model --trace
DIR`` in text and JSON, prints the rank summary lines of the text report and the wall time.

python benchmarks/bench_trace_ranks.py [--ranks 1024] [--odd 512] [--src DIR] [--keep]
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
SRC = ROOT / "fixtures" / "trace" / "torch2.13-collectives"


def _read(p: Path) -> bytes:
    return gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()


def synthesise(src: Path, out: Path, ranks: int, odd: set[int]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    base = {r: _read(sorted(src.glob(f"*rank_{r}*"))[0]) for r in (0, 1)}
    total = 0
    for r in range(ranks):
        which = 1 if r in odd else 0
        data = re.sub(rb'"rank": \d+', b'"rank": %d' % r, base[which])
        (out / f"dedicated_log_torch_trace_rank_{r}_synth.log").write_bytes(data)
        total += len(data)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--odd", type=int, nargs="*", help="ranks that behave like rank 1")
    ap.add_argument("--src", default=str(SRC))
    ap.add_argument("--dir", help="synthesise here (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    odd = set(args.odd if args.odd is not None else [args.ranks // 2])
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="compilelint-bench-ranks-"))
    try:
        size = synthesise(Path(args.src), tmp, args.ranks, odd)
        base = [sys.executable, "-m", "compilelint", "check", "fixtures/trace/model"]
        base += ["--trace", str(tmp), "--no-cache", "--fail-on", "never"]
        load = [round(x, 1) for x in os.getloadavg()]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        text = subprocess.run(base, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        if text.returncode != 0:
            sys.exit(f"bench_trace_ranks: compilelint failed: {text.stderr[-2000:]}")
        t1 = time.perf_counter()
        js = subprocess.run(
            [*base, "--format", "json"], cwd=ROOT, capture_output=True, text=True, check=False
        )
        wall_json = time.perf_counter() - t1
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    data = json.loads(js.stdout)
    lines = [ln for ln in text.stdout.splitlines() if ln.startswith(("  rank", "torch "))]
    print("\n".join(lines))
    result = {
        "ranks": args.ranks,
        "odd": sorted(odd),
        "trace_mb": round(size / (1 << 20), 1),
        "text_s": round(wall, 2),
        "text_cpu_s": round(cpu, 2),
        "load": load,
        "json_s": round(wall_json, 2),
        "peak_rss_mb": round(peak_mb),
        "groups": data["dynamic"]["rank_groups"],
        "divergences": len(data["dynamic"]["divergence"]),
        "text_lines": len(text.stdout.splitlines()),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
