"""Whole-process timing: the dynamic stage vs a bare torch._dynamo.explain script.

    python benchmarks/bench_dynamic.py [--runs 5] [--spec fixtures/dynamic/tensor_if.json]

Both sides are timed as whole processes (median of --runs): (a) a bare Python script that imports
torch, builds the same model and inputs and runs torch._dynamo.explain once; (b) the dynamic
stage as `check --input-spec` runs it (a parent process that never imports torch, spawning the
runner child). Target: ratio <= 1.3x without variants.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EXPLAIN = """
import importlib.util, sys, torch, torch._dynamo
spec = importlib.util.spec_from_file_location("m", {path!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
torch.manual_seed(0)
model = getattr(m, {name!r})({init}).eval()
x = torch.randn({shape})
with torch.no_grad():
    out = torch._dynamo.explain(model)(x)
print(out.graph_count, out.graph_break_count)
"""

DYNAMIC = """
import sys
from compilelint.dynamic.api import run_dynamic
r = run_dynamic({spec!r}, cwd={root!r}, timeout=300)
assert r.ok, r.error
print(r.block["graph_count"], r.block["graph_break_count"])
"""


def timed(code: str) -> float:
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    try:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, fh.name],
            check=True,
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return time.perf_counter() - t0
    finally:
        os.unlink(fh.name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--spec", default="fixtures/dynamic/tensor_if.json")
    ns = ap.parse_args()
    spec_path = ROOT / ns.spec
    spec = json.loads(spec_path.read_text())
    file, name = spec["model"].split(":")
    shape = tuple(spec["inputs"][0]["tensor"])
    init = ", ".join(f"{k}={v!r}" for k, v in spec.get("init", {}).get("kwargs", {}).items())
    explain = EXPLAIN.format(path=str(spec_path.parent / file), name=name, init=init, shape=shape)
    dynamic = DYNAMIC.format(spec=str(spec_path), root=str(ROOT))
    timed(explain)  # warm the file cache once
    bare, ours = [], []
    for _ in range(ns.runs):
        bare.append(timed(explain))
        ours.append(timed(dynamic))
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"spec: {ns.spec}  runs: {ns.runs}")
    print(f"bare explain script : median {b:.3f} s  (min {min(bare):.3f}, max {max(bare):.3f})")
    print(f"compilelint dynamic : median {o:.3f} s  (min {min(ours):.3f}, max {max(ours):.3f})")
    print(f"ratio               : {o / b:.2f}x  (target <= 1.30x)")


if __name__ == "__main__":
    main()
