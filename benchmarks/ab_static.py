"""Before/after in the same run: two versions of compilelint's source on the same corpus,
interleaved, so that a loaded machine's load hits both alike.

    python benchmarks/ab_static.py --base /work/main/src [--new src] [--repeat 2]
                                   [--modes nofollow,first,cached,warm] [--first 200]

Each run is a separate ``compilelint check . --select ALL --format json`` process (the
default workers) with ``PYTHONPATH`` set to one version's ``src`` folder, on a copy of the
first N files of the installed transformers package's ``models/`` folder (as
``bench_static.py --ratios``): ``nofollow`` (``--no-cache --no-follow``), ``first``
(``--no-cache``: following parses the library files), ``cached`` (library facts cached, the
facts and results caches removed) and ``warm`` (unchanged tree). The runs use bytecode, as an
installed package does (``pip install`` compiles it): a first, unmeasured run of each version
writes it into a temporary ``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says
(``--no-bytecode``: as the environment says; with ``PYTHONDONTWRITEBYTECODE=1``, as on this
project's machine, every run compiled compilelint's modules from source, ~0.1 s of its wall). Following is not bounded in
time (as in ``compare_findings.py``), so that both versions follow the same files however
loaded the machine is. Prints wall and CPU (user + system of the run and its workers), each
also over the bare single-process ``libcst.parse_module`` of the same files in the same round,
and the medians; and the number of findings each version reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_static import BARE_CPU, bare_parse, copy_corpus, default_root

UNBOUNDED = (
    "import sys, compilelint.static.follow as F; F.follow.__kwdefaults__['max_seconds'] = 1e9; "
    "import compilelint.cli as C; sys.argv[0] = 'compilelint'; getattr(C, 'run', C.main)()"
)


PYCACHE: list[str] = []  # the bytecode folder of the runs (empty: as the environment says)


def run(src: str, args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run with ``src`` first on the path."""
    import time

    env = dict(os.environ, PYTHONPATH=src)
    if PYCACHE:  # bytecode, as an installed package has it
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE[0]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            UNBOUNDED,
            "check",
            ".",
            "--select",
            "ALL",
            "--format",
            "json",
            *args,
        ],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the src folder of the version to compare with")
    ap.add_argument("--new", default=str(here / "src"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--modes", default="nofollow,first,cached,warm")
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run as the environment says: with PYTHONDONTWRITEBYTECODE=1 each run compiles "
        "compilelint's modules from source (default: bytecode written by a first, unmeasured "
        "run of each version, as pip install compiles an installed package)",
    )
    a = ap.parse_args()
    versions = {"base": a.base, "new": a.new}
    modes = a.modes.split(",")
    root = default_root()
    files = sorted(root.rglob("*.py"))[: a.first]
    work = Path(tempfile.mkdtemp(prefix="ab-static-"))
    dst = work / "first"
    copy_corpus(root, files, dst)
    cache = dst / ".compilelint_cache"
    if not a.no_bytecode:
        PYCACHE.append(str(work / "pycache"))
        for src in versions.values():  # unmeasured: writes each version's bytecode
            run(src, ["--no-cache", "-o", str(work / "bytecode.json")], dst)
    rows: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {}
    found: dict[tuple[str, str], int] = {}
    for r in range(a.repeat):
        bare = bare_parse(files)
        bcpu = BARE_CPU[-1]
        print(
            f"round {r + 1}: bare parse {bare:.2f} s wall, {bcpu:.2f} s CPU, "
            f"load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        for name, src in versions.items():
            shutil.rmtree(cache, ignore_errors=True)
            got: dict[str, tuple[float, float]] = {}
            for mode, extra in (
                ("nofollow", ["--no-cache", "--no-follow"]),
                ("first", ["--no-cache"]),
            ):
                if mode in modes:
                    out = work / f"{name}-{mode}.json"
                    got[mode] = run(src, [*extra, "-o", str(out)], dst)
                    found[(name, mode)] = len(json.loads(out.read_text())["findings"])
            if "cached" in modes or "warm" in modes:
                run(src, ["-o", str(work / "fill.json")], dst)  # fills the caches
                for p in [*cache.glob("facts-*"), *cache.glob("results-*")]:
                    p.unlink()
                got["cached"] = run(src, ["-o", str(work / "c.json")], dst)
                got["warm"] = run(src, ["-o", str(work / "w.json")], dst)
            for mode, (w, c) in got.items():
                rows.setdefault((name, mode), []).append((w / bare, c / bcpu, w, c))
                print(
                    f"  {name:5} {mode:9} wall {w:7.2f} s ({w / bare:.2f}x)  "
                    f"CPU {c:6.2f} s ({c / bcpu:.2f}x)",
                    flush=True,
                )
    print("medians (x: over the bare parse of the same round):")
    for (name, mode), v in sorted(rows.items(), key=lambda x: (x[0][1], x[0][0])):
        med = [statistics.median(x[i] for x in v) for i in range(4)]
        print(
            f"  {mode:9} {name:5} wall {med[2]:7.2f} s ({med[0]:.2f}x)  "
            f"CPU {med[3]:6.2f} s ({med[1]:.2f}x)"
        )
    for (name, mode), n in sorted(found.items()):
        print(f"  findings, {name} {mode}: {n}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
