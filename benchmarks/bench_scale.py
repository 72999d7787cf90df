"""Scale: a generated tree of 10,000 files and one 100,000-line file; time and peak memory.

    python benchmarks/bench_scale.py [--files 10000] [--lines 100000] [--keep DIR]

The tree is 100 packages of 100 modules: a quarter are torch models (a few graph-breaking lines
each, helpers imported from sibling modules), the rest plain utility modules that traced code
calls into now and then (analysed on demand). Every measurement is ``compilelint check ...
--format json`` as its own process; peak RSS is the largest single process (the CLI or one of
its pool workers), from ``getrusage(RUSAGE_CHILDREN)`` of a fresh wrapper process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODEL = """import torch
from torch import nn

from .util_{helper:03d} import scale_{helper:03d}


class Block{i}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear({d}, {d})
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        if h.sum() > {t}:  # CL101
            h = h * 2
        peak = h.abs().max().item()  # CL103
        return scale_{helper:03d}(h) / max(peak, 1.0)
"""

UTIL = '''"""Plain helpers (no torch mention): analysed only when traced code calls them."""

import math


def scale_{i:03d}(t):
    print("scaling")  # CL201 when traced
    return t * {k}


def unrelated_{i:03d}(values):
    total = 0
    for v in values:
        total += math.sqrt(abs(v)) * {k}
    return total
'''


def make_tree(root: Path, n_files: int, seed: int = 0) -> int:
    rnd = random.Random(seed)
    per = 100
    lines = 0
    for p in range(max(1, n_files // per)):
        pkg = root / f"pkg{p:03d}"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        for i in range(1, per):
            if i % 4 == 0:
                src = MODEL.format(i=i, helper=i - 1, d=rnd.choice((8, 16, 32)), t=rnd.random())
                (pkg / f"model_{i:03d}.py").write_text(src)
            else:
                src = UTIL.format(i=i, k=rnd.randint(2, 9))
                (pkg / f"util_{i:03d}.py").write_text(src)
            lines += src.count("\n")
    return lines


def make_big(path: Path, n_lines: int) -> None:
    out = ["import torch", "from torch import nn", "", "", "class Big(nn.Module):"]
    i = 0
    while len(out) < n_lines - 8:
        out += [
            f"    def step_{i}(self, x: torch.Tensor) -> torch.Tensor:",
            f"        y = x * {i % 7 + 1}",
            "        return y + 1",
            "",
        ]
        i += 1
    out += [
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
        "        x = self.step_0(x)",
        "        print(x.sum())  # CL201",
        "        return x",
    ]
    path.write_text("\n".join(out[:n_lines]) + "\n")


WRAP = (
    "import json, resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "s = time.perf_counter() - t\n"
    "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "out = json.loads(p.stdout) if p.returncode in (0, 1) else {}\n"
    "print(json.dumps({'rc': p.returncode, 'seconds': s, 'rss_kb': rss,\n"
    "                  'summary': out.get('summary'), 'err': p.stderr.decode()[-500:]}))\n"
)


def measure(args: list[str], cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "compilelint.cli", "check", *args, "--format", "json"]
    p = subprocess.run(
        [sys.executable, "-c", WRAP, *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--keep", help="build the inputs here and keep them")
    ns = ap.parse_args()
    base = Path(ns.keep) if ns.keep else Path(tempfile.mkdtemp(prefix="compilelint-scale-"))
    tree = base / "tree"
    if not tree.exists():
        make_tree(tree, ns.files)
    big = base / "big.py"
    if not big.exists():
        make_big(big, ns.lines)
    rows = []
    for name, args, cwd in [
        ("tree, cold, -j1", ["tree", "--no-cache", "-j1"], base),
        ("tree, cold, -j2", ["tree", "--no-cache", "-j2"], base),
        ("tree, cache filled (first run)", ["tree", "-j2"], base),
        ("tree, warm (unchanged)", ["tree", "-j2"], base),
        ("100,000-line file, cold", ["big.py", "--no-cache"], base),
    ]:
        r = measure(args, cwd)
        rows.append((name, r))
        print(name, json.dumps(r), file=sys.stderr, flush=True)
    print("| run | files | lines | findings | seconds | peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in rows:
        s = r.get("summary") or {}
        print(
            f"| {name} | {s.get('files', 0):,} | {s.get('lines', 0):,} | "
            f"{s.get('findings', 0):,} | {r['seconds']:.1f} | {r['rss_kb'] / 1024:.0f} |"
        )


if __name__ == "__main__":
    main()
