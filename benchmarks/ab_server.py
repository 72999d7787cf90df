"""Before/after for the editor server, edit by edit: two versions of compilelint's source each
run the server's analyser (``lsp.analyzer.Analyzer``: in-memory caches, the incremental
parser) in its own process on a copy of a transformers model folder, and the edits of
``bench_lsp.py`` (a ``.item()`` line inserted in a ``forward`` and taken out again, spread
through the file) go to the two processes alternately, so that both see the same load of a
shared machine in the same seconds.

    python benchmarks/ab_server.py --base /tmp/base/src [--new src] [--model wav2vec2]
                                   [--repeat 3] [--pattern spread|typing]
                                   [--no-final-newline]

Prints, per version, the CPU time (``time.process_time`` of the process: its threads
included) and wall time of each ``Analyzer.check`` (median and 95th percentile), the cold
open, and the median of the paired ratios new/base of each edit's CPU time, which a loaded
machine disturbs least; and how many edits gave different findings (it must be 0). The same
figures for the inserting edits and the reverting ones apart: a revert brings back the text of
the cold open, which a version that remembers recent contents (``MemoryCache``) answers without
a walk, so the inserts are the figure for an edit that makes new text. No LSP
protocol here: ``bench_lsp.py`` measures edit -> publish over stdio.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _sites(lines: list[str]) -> list[tuple[int, str]]:
    """The first statement line of each ``forward``'s body, with its indentation (as
    ``bench_lsp.py``)."""
    sites = []
    for i, ln in enumerate(lines):
        if not ln.strip().startswith("def forward("):
            continue
        j = i
        while not lines[j].rstrip().endswith(":"):
            j += 1
        k = j + 1
        indent = len(lines[k]) - len(lines[k].lstrip())
        if lines[k].strip().startswith(('"""', 'r"""')):
            if lines[k].count('"""') >= 2:
                k += 1
            else:
                while True:
                    k += 1
                    if '"""' in lines[k]:
                        k += 1
                        break
        sites.append((k, " " * indent))
    return sites


def worker(model: str, edits: int, pattern: str = "spread", no_final_newline: bool = False) -> None:
    """One version's side: reads edit numbers on stdin, answers one JSON line per edit."""
    from compilelint.lsp.analyzer import Analyzer

    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("ab_server: needs transformers installed")
    tmp = Path(tempfile.mkdtemp(prefix="ab-server-"))
    work = tmp / model
    shutil.copytree(
        Path(spec.origin).parent / "models" / model,
        work,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    target = work / f"modeling_{model}.py"
    text = target.read_text(encoding="utf-8")
    if no_final_newline:  # the file's last line not ended (every edit's text too)
        text = text.rstrip("\n")
    lines = text.split("\n")
    sites = _sites(lines)
    an = Analyzer()
    t = time.process_time()
    an.check(str(target), text)
    print(json.dumps({"cold": time.process_time() - t}), flush=True)
    pairs = max((edits + 1) // 2, 1)
    for line in sys.stdin:
        e = int(line)
        new = list(lines)
        if pattern == "typing":  # 4 edits at one place (4 new texts), then the next place
            groups = max(edits // 4, 1)
            k, indent = sites[min((e // 4) * len(sites) // groups, len(sites) - 1)]
            new.insert(k, f"{indent}_probe = torch.zeros({e % 4 + 1}).item()")
        else:
            k, indent = sites[min((e // 2) * len(sites) // pairs, len(sites) - 1)]
            if e % 2 == 0:
                new.insert(k, f"{indent}_probe = torch.zeros(1).item()")
        body = "\n".join(new)
        c, w = time.process_time(), time.perf_counter()
        got = an.check(str(target), body)
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        found = sorted(
            (f.rule, f.line, f.col, f.end_line, f.end_col, f.message) for f in got.findings
        )
        print(json.dumps({"cpu": cpu, "wall": wall, "findings": found}), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


def _p95(xs: list[float]) -> float:
    return sorted(xs)[int(0.95 * (len(xs) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the base version's src folder")
    ap.add_argument("--new", default="src", help="the new version's src folder (default: src)")
    ap.add_argument("--model", default="wav2vec2")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument(
        "--pattern",
        choices=("spread", "typing"),
        default="spread",
        help="spread: bench_lsp.py's edits (insert, take out, next place); typing: four "
        "different lines at one place, then the next place (every text new)",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--no-final-newline",
        action="store_true",
        help="take the newline at the end of the file away (every edit's text has none)",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.model, args.edits, args.pattern, args.no_final_newline)
        return
    procs = {}
    for name, src in (("base", args.base), ("new", args.new)):
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                [str(Path(src).resolve()), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        procs[name] = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                "--base",
                "-",
                "--model",
                args.model,
                "--edits",
                str(args.edits),
                "--pattern",
                args.pattern,
                *(["--no-final-newline"] if args.no_final_newline else []),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
    cold = {}
    for n, p in procs.items():
        assert p.stdout is not None
        cold[n] = json.loads(p.stdout.readline())["cold"]
    cpu: dict[str, list[float]] = {n: [] for n in procs}
    wall: dict[str, list[float]] = {n: [] for n in procs}
    different = 0
    order = list(procs)
    for r in range(args.repeat):
        for e in range(args.edits):
            got = {}
            # alternate which version goes first
            for n in order if (r * args.edits + e) % 2 == 0 else order[::-1]:
                p = procs[n]
                assert p.stdin is not None and p.stdout is not None
                p.stdin.write(f"{e}\n")
                p.stdin.flush()
                got[n] = json.loads(p.stdout.readline())
                cpu[n].append(got[n]["cpu"])
                wall[n].append(got[n]["wall"])
            different += got["base"]["findings"] != got["new"]["findings"]
    for p in procs.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    for n in procs:
        print(
            f"{n}: cold open {cold[n] * 1000:.0f} ms CPU; per edit CPU median "
            f"{statistics.median(cpu[n]) * 1000:.1f} ms, p95 {_p95(cpu[n]) * 1000:.1f} ms; wall "
            f"median {statistics.median(wall[n]) * 1000:.1f} ms, p95 {_p95(wall[n]) * 1000:.1f} ms "
            f"({len(cpu[n])} edits)"
        )
    ratios = [a / b for a, b in zip(cpu["new"], cpu["base"]) if b > 0]
    print(
        f"paired CPU ratio new/base: median {statistics.median(ratios):.3f}; edits with "
        f"different findings: {different}; load average {os.getloadavg()[0]:.1f}"
    )
    if args.pattern == "typing":
        return
    # even edits insert the line (a text not seen before), odd ones take it out again (the
    # text of the cold open: a version that caches recent contents answers from memory)
    for kind, first in (("inserts", 0), ("reverts", 1)):
        part = {n: cpu[n][first::2] for n in procs}
        r = [a / b for a, b in zip(part["new"], part["base"]) if b > 0]
        print(
            f"  {kind}: CPU median base {statistics.median(part['base']) * 1000:.1f} ms, new "
            f"{statistics.median(part['new']) * 1000:.1f} ms; p95 base "
            f"{_p95(part['base']) * 1000:.1f} ms, new {_p95(part['new']) * 1000:.1f} ms; "
            f"paired ratio median {statistics.median(r):.3f}"
        )


if __name__ == "__main__":
    main()
