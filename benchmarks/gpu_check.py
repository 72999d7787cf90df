"""Check the dynamic stage and ``bench`` where users run them: on a GPU (issue 14, item 7).

    python benchmarks/gpu_check.py [--out results.json] [--quick]

Runs every cell of the matrix below from ``benchmarks/gpu_check/`` (small models; the spec forms
the README recommends) and checks what each must show, writing one JSON record per cell:

- dynamic stage: a factory spec whose inputs are built on the CPU (moved to cuda, and said so),
  an instance spec, an nn.Module class with ``init``, a factory returning a train-mode model
  (the training-only break is observed, mode "train" from the factory), the same with
  ``mode: eval`` in the spec, ``dynamic`` dims with variants (no recompile), a step counter past
  the recompile limit, a custom op torch.compile cannot trace (CL004, not a tool error);
- bench: default in float32, reduce-overhead in bfloat16, max-autotune in float16, and the step
  counter under the recompile limit (the step breakdown names the eager fallback).

Exit code 0 when every cell passes. Results recorded in docs/gpu-check.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "gpu_check"
ROOT = HERE.parent.parent


DEVICE = "cuda"


def spec_path(name: str) -> str:
    """The cell's spec, for ``--device cpu`` rewritten to the CPU (a local smoke run)."""
    src = HERE / f"{name}.json"
    if DEVICE == "cuda":
        return str(src)
    data = json.loads(src.read_text(encoding="utf-8"))
    data["device"] = DEVICE
    tmp = HERE / f".{DEVICE}"
    tmp.mkdir(exist_ok=True)
    (tmp / src.name).write_text(json.dumps(data), encoding="utf-8")
    return str(tmp / src.name)


def dynamic_cell(name: str, check: Callable[[dict[str, Any]], list[str]]) -> dict[str, Any]:
    from compilelint.catalog import load_catalog
    from compilelint.dynamic.api import run_dynamic
    from compilelint.merge import compile_failure_finding

    t0 = time.perf_counter()
    res = run_dynamic(spec_path(name), cwd=str(HERE), timeout=540)
    block = dict(res.block)
    if block.get("compile_failure"):
        f = compile_failure_finding(block["compile_failure"], load_catalog(), root=str(HERE))
        block["cl004"] = f.message if f else None
    problems = [f"error: {res.error.get('step')}: {res.error.get('message')}"] if res.error else []
    if not res.error:
        problems += check(block)
    return {
        "cell": f"dynamic: {name}",
        "ok": not problems,
        "problems": problems,
        "seconds": round(time.perf_counter() - t0, 1),
        "observed": {
            k: block.get(k)
            for k in (
                "device",
                "mode",
                "mode_source",
                "inputs_moved",
                "graph_count",
                "graph_break_count",
                "recompile_count",
                "hit_recompile_limit",
                "cl004",
            )
        },
        "breaks": [f"{b['path']}:{b['line']} {b['gb_type']}" for b in block.get("breaks", [])],
        "recompiles": [
            f"{r['path']}:{r['line']} {r.get('guard_readable')}"
            for r in block.get("recompiles", [])
        ],
    }


def bench_cell(
    name: str,
    spec: str,
    modes: tuple[str, ...],
    dtype: str | None,
    check: Callable[[dict[str, Any]], list[str]],
    quick: bool,
) -> dict[str, Any]:
    from compilelint.bench.api import BenchOptions, Target, run_bench

    t0 = time.perf_counter()
    opts = BenchOptions(
        modes=modes,
        dtype=dtype,
        device="cuda",
        steps=10 if quick else 30,
        warmup=3,
        warmup_seconds=0.5 if quick else 2.0,
        attribution_steps=5,
        timeout=540,
    )
    try:
        result = run_bench(
            [Target(label=name, spec=str(HERE / f"{spec}.json"))], opts, cwd=str(HERE)
        )
    except Exception as exc:
        return {"cell": f"bench: {name}", "ok": False, "problems": [repr(exc)], "seconds": 0}
    run = result["runs"][0]
    problems = []
    if run.get("error"):
        problems.append(f"error: {run['error'].get('step')}: {run['error'].get('message')}")
    for m in run["modes"]:
        if m.get("error"):
            problems.append(f"{m['mode']}: {m['error'].get('step')}: {m['error'].get('message')}")
    if not problems:
        problems += check(run)
    return {
        "cell": f"bench: {name}",
        "ok": not problems,
        "problems": problems,
        "seconds": round(time.perf_counter() - t0, 1),
        "environment": result.get("environment"),
        "eager_ms": run["eager"]["step"].get("median_ms"),
        "modes": [
            {
                "mode": m["mode"],
                "step_ms": m["step"].get("median_ms"),
                "speedup": m.get("speedup"),
                "significant": m.get("significant"),
                "graphs": m.get("graphs"),
                "breaks": m.get("break_count"),
                "recompiles": m.get("recompiles"),
                "eager_fallback": [fb.get("text") for fb in m.get("eager_fallback") or []],
                "in_graphs_share": (m.get("time") or {}).get("in_graphs_share"),
            }
            for m in run["modes"]
        ],
        "mode_source": run.get("mode_source"),
        "inputs_moved": run.get("inputs_moved"),
        "warnings": result.get("warnings"),
    }


def expect(cond: bool, what: str) -> list[str]:
    return [] if cond else [what]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gpu_check_results.json")
    ap.add_argument("--quick", action="store_true", help="fewer timed steps")
    ap.add_argument("--device", default="cuda", help="cpu: a local smoke run (default modes)")
    ap.add_argument("--only", choices=("dynamic", "bench"), help="run one half of the matrix")
    ns = ap.parse_args()
    global DEVICE
    DEVICE = ns.device
    sys.path.insert(0, str(ROOT / "src"))
    dyn = [
        (
            "factory",
            lambda b: expect(
                DEVICE != "cuda" or "cuda" in (b.get("inputs_moved") or ""),
                "factory inputs not moved to cuda",
            ),
        ),
        ("instance", lambda b: expect(b.get("mode_source") == "instance", "mode source")),
        ("class_init", lambda b: expect(b.get("graph_count", 0) >= 1, "no graph")),
        (
            "train_factory",
            lambda b: (
                expect((b.get("mode"), b.get("mode_source")) == ("train", "factory"), "mode")
                + expect(b.get("graph_break_count", 0) >= 1, "training-only break not observed")
            ),
        ),
        (
            "eval_spec",
            lambda b: (
                expect((b.get("mode"), b.get("mode_source")) == ("eval", "spec"), "mode")
                + expect(b.get("graph_break_count", 0) == 0, "break observed in eval")
            ),
        ),
        (
            "dynamic_dims",
            lambda b: expect(b.get("recompile_count", 0) == 0, "dynamic dims recompiled"),
        ),
        ("recompile_limit", lambda b: expect(bool(b.get("hit_recompile_limit")), "limit not hit")),
        ("compile_failure", lambda b: expect(bool(b.get("cl004")), "no CL004 finding")),
    ]
    bench = [
        (
            "default fp32 (factory)",
            "factory",
            ("default",),
            None,
            lambda r: expect(DEVICE != "cuda" or bool(r.get("inputs_moved")), "inputs not moved"),
        ),
        ("reduce-overhead bf16", "instance", ("reduce-overhead",), "bfloat16", lambda r: []),
        (
            "train mode (factory)",
            "train_factory",
            ("default",),
            None,
            lambda r: expect(bool(r.get("train")), "not trained"),
        ),
        (
            "recompile limit",
            "recompile_limit",
            ("default",),
            None,
            lambda r: expect(
                bool(r["modes"][0].get("eager_fallback")), "no eager-fallback attribution"
            ),
        ),
        ("max-autotune fp16", "class_init", ("max-autotune",), "float16", lambda r: []),
    ]
    if ns.only == "bench":
        dyn = []
    if ns.only == "dynamic":
        bench = []
    t0 = time.perf_counter()
    cells: list[dict[str, Any]] = []

    def save() -> dict[str, Any]:  # after every cell: a run cut short keeps what it did
        out = {
            "command": "python benchmarks/gpu_check.py" + (" --quick" if ns.quick else ""),
            "device": DEVICE,
            "seconds": round(time.perf_counter() - t0, 1),
            "passed": sum(c["ok"] for c in cells),
            "cells": cells,
        }
        Path(ns.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        return out

    with ThreadPoolExecutor(max_workers=4) as pool:
        futs = [pool.submit(dynamic_cell, n, c) for n, c in dyn]
        cells += [f.result() for f in futs]
    save()
    if DEVICE != "cuda":  # no CUDA graphs, no half-precision speed on a CPU: default mode only
        bench = [
            (n, s, ("default",), None, c)
            for n, s, _m, _d, c in bench
            if "fp32" in n or "limit" in n
        ]
    for name, spec, modes, dtype, check in bench:  # one at a time: the GPU is shared
        try:
            cells.append(bench_cell(name, spec, modes, dtype, check, ns.quick))
        except Exception as exc:
            cells.append({"cell": f"bench: {name}", "ok": False, "problems": [repr(exc)]})
        print(("PASS " if cells[-1]["ok"] else "FAIL ") + cells[-1]["cell"], flush=True)
        save()
    out = save()
    for c in cells:
        print(("PASS " if c["ok"] else "FAIL ") + c["cell"], "; ".join(c["problems"]))
    print(f"{out['passed']}/{len(cells)} cells passed in {out['seconds']} s")
    return 0 if out["passed"] == len(cells) else 1


if __name__ == "__main__":
    sys.exit(main())
