"""Static-stage robustness, the full run: zero crashes on real and generated code.

    python benchmarks/fuzz_static.py [--corpora stdlib,torch,transformers] [--generated 10000]
                                     [--batch 500] [--jobs N] [--seed 0]

1. Corpora: every ``.py`` of the installed standard library, torch and transformers, scanned by
   ``compilelint check DIR --format json --no-cache --no-respect-gitignore`` as a separate
   process (as a user runs it), then every file the scan only syntax-checked (it mentions neither
   ``torch`` nor ``forward``) analysed in full too, so every file goes through the walker.
2. Generated programs (``tests/fuzz_programs.py``: torch-shaped models built from random
   statements, plus hypothesmith's grammar programs), written in batches and scanned the same way.
3. The odd files of ``tests/fuzz_programs.py`` (encodings, BOMs, loops, a fifo, ...).

A crash is a process killed by a signal, a traceback, a non-JSON report or exit code 2; an
``internal error`` / ``cannot analyse`` CL000 is counted as a bug. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
BUGS = ("internal error", "cannot analyse")


def corpus_dirs() -> dict[str, Path]:
    import importlib.util
    import sysconfig

    out = {"stdlib": Path(sysconfig.get_paths()["stdlib"])}
    for name in ("torch", "transformers"):
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            out[name] = Path(next(iter(spec.submodule_search_locations)))
    return out


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), e.get("PYTHONPATH", "")])
    return e


def run_check(target: Path, jobs: int, cwd: Path) -> dict[str, object]:
    """One ``compilelint check`` process over ``target``; what it found and whether it crashed."""
    cmd = [sys.executable, "-m", "compilelint.cli", "check", str(target), "--format", "json"]
    cmd += ["--no-cache", "--no-respect-gitignore", "--fail-on", "never", "-j", str(jobs)]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env(), errors="replace")
    seconds = time.perf_counter() - t
    crash = ""
    data: dict = {}
    if p.returncode < 0:
        crash = f"killed by signal {-p.returncode}"
    elif "Traceback" in p.stderr:
        crash = p.stderr.strip().splitlines()[-1]
    else:
        try:
            data = json.loads(p.stdout)
        except ValueError:
            crash = f"exit {p.returncode}, no JSON: {p.stderr.strip()[-200:]}"
    if p.returncode == 2 and not crash:
        crash = f"exit 2: {p.stderr.strip()[-200:]}"
    findings = data.get("findings", []) if data else []
    cl000 = [f for f in findings if f["rule"] == "CL000"]
    return {
        "files": data.get("summary", {}).get("files", 0) if data else 0,
        "lines": data.get("summary", {}).get("lines", 0) if data else 0,
        "findings": len(findings),
        "cl000": len(cl000),
        "bugs": [f"{f['path']}: {f['message']}" for f in cl000 if f["message"].startswith(BUGS)],
        "crash": crash,
        "seconds": seconds,
        "cl000_samples": sorted({f["message"][:50] for f in cl000})[:8],
    }


FORCE = r"""
import json, sys
from compilelint.static import engine
from compilelint.static.discovery import discover
from compilelint.static.engine import FileInput, analyze_source, read_source
checks = engine._checks_for(sorted(engine.all_checks()))
bugs = []
n = 0
for path in map(str, discover([sys.argv[1]], respect_gitignore=False).files):
    try:
        data = read_source(path)
    except OSError:
        continue
    if b"torch" in data or b"forward" in data:
        continue
    n += 1
    f = analyze_source(data, FileInput(path, path, "m", False), checks, force=True)
    if f.error and f.error.startswith(("internal error", "cannot analyse")):
        bugs.append(f"{path}: {f.error}")
print(json.dumps({"forced": n, "bugs": bugs}))
"""


def force_rest(target: Path) -> dict[str, object]:
    """Analyse in full the files the scan only syntax-checked (a separate process too)."""
    t = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", FORCE, str(target)], capture_output=True, text=True, env=env()
    )
    out: dict[str, object] = {"seconds": time.perf_counter() - t, "crash": ""}
    if p.returncode != 0:
        out["crash"] = f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
        out.update(forced=0, bugs=[])
    else:
        out.update(json.loads(p.stdout))
    return out


def generate(n: int, seed: int) -> list[str]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed
    from tests.fuzz_programs import programs

    out: list[str] = []

    @hseed(seed)
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(programs())
    def collect(src: str) -> None:
        out.append(src)

    warnings.simplefilter("ignore")
    collect()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", default="stdlib,torch,transformers")
    ap.add_argument("--generated", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ns = ap.parse_args()
    rows: list[tuple[str, dict]] = []
    failed = False
    dirs = corpus_dirs()
    for name in [c for c in ns.corpora.split(",") if c]:
        if name not in dirs:
            print(f"skipping {name}: not installed", file=sys.stderr)
            continue
        r = run_check(dirs[name], ns.jobs, dirs[name].parent)
        f = force_rest(dirs[name])
        r["bugs"] = list(r["bugs"]) + list(f["bugs"])
        r["crash"] = r["crash"] or f["crash"]
        r["forced"] = f["forced"]
        r["force_seconds"] = f["seconds"]
        rows.append((name, r))
        print(name, json.dumps(r), file=sys.stderr, flush=True)

    if ns.generated:
        t = time.perf_counter()
        progs = generate(ns.generated, ns.seed)
        gen_s = time.perf_counter() - t
        total: dict = {
            "files": 0,
            "lines": 0,
            "findings": 0,
            "cl000": 0,
            "bugs": [],
            "crash": "",
            "seconds": 0.0,
            "generate_seconds": gen_s,
            "cl000_samples": [],
        }
        with tempfile.TemporaryDirectory() as d:
            for b in range(0, len(progs), ns.batch):
                bd = Path(d, f"batch{b // ns.batch:04d}")
                bd.mkdir()
                for i, src in enumerate(progs[b : b + ns.batch]):
                    (bd / f"gen_{i:05d}.py").write_bytes(src.encode("utf-8", "surrogatepass"))
                r = run_check(bd, ns.jobs, Path(d))
                for k in ("files", "lines", "findings", "cl000", "seconds"):
                    total[k] += r[k]
                total["bugs"] += r["bugs"]
                total["crash"] = total["crash"] or r["crash"]
                total["cl000_samples"] = sorted(
                    set(total["cl000_samples"]) | set(r["cl000_samples"])
                )[:8]
                f = force_rest(bd)
                total["bugs"] += f["bugs"]
                total["crash"] = total["crash"] or f["crash"]
        rows.append((f"generated ({len(progs)} programs)", total))
        print("generated", json.dumps(total), file=sys.stderr, flush=True)

    from tests.fuzz_programs import write_odd_files

    with tempfile.TemporaryDirectory() as d:
        expect = write_odd_files(Path(d))
        r = run_check(Path("."), ns.jobs, Path(d))
        r["expected_cl000"] = sum(1 for w in expect.values() if w is not None)
        rows.append(("odd files", r))

    print("| input | files | lines | findings | CL000 | crashes | bugs | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        crashes = 1 if r["crash"] else 0
        failed |= bool(crashes or r["bugs"])
        print(
            f"| {name} | {r['files']:,} | {r['lines']:,} | {r['findings']:,} | {r['cl000']:,} "
            f"| {crashes} | {len(r['bugs'])} | {r['seconds']:.1f} |"
        )
    for name, r in rows:
        if r["crash"]:
            print(f"CRASH in {name}: {r['crash']}")
        for b in r["bugs"][:20]:
            print(f"BUG in {name}: {b}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
