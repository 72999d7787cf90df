"""Phase 1's cost in instructions, which a loaded machine does not change.

    valgrind --tool=callgrind --toggle-collect=functools_reduce \\
        python benchmarks/count_static.py MODE [--root DIR] [--analysed 12] [--syntax-only 6]

MODE is ``bare`` (``libcst.parse_module`` over the files), ``phase1`` (``engine.analyze_source``
with every static rule over the same files: parse, syntax check, walk, checks, positions),
``nochecks`` (phase 1 without the checks' hooks), ``nocalls`` (without their ``visit_Call``
hooks) or ``nopos`` (without positions); ``follow`` is a first run with following into installed
packages (``engine.scan`` with ``--no-cache``, one process) over a copy of the subset.
``firstrun`` needs no valgrind: a first run (``--no-cache``, the default 2 workers, following not
bounded in time) over a copy of all 200 files, as ``bench_static.py --ratios`` runs it, printing
counts of its serial work after phase 1, which the machine's load does not change: project
computations (``Project.compute``), the calls of ``analyse_files`` for library files (each a
wait for the pool: files, bytes, and the bytes on the critical path, the larger of the largest
file and half the call's bytes), the library files begun in the pool while this process goes
on (``start_files``: files and bytes), light reads, and the Python function calls of the parent
(cProfile) in the project and follow phases, in ``compute``, in the light reads and in the findings
phase, and the CPython parses (``ast.parse``) this process makes, by the same parts, and the runs of the
cyclic collector (``gc.callbacks``) in this process during the scan and after it (2,000 new
objects, as a report makes) and in the workers, by generation, with their CPU. The files are a fixed subset of the first 200 files
(sorted paths) of the installed transformers package's ``models/`` folder: every k-th of those
that phase 1 analyses (they mention ``torch`` or ``forward``) and every k-th of the others. The
work runs inside one ``functools.reduce`` call, so that callgrind's ``--toggle-collect`` counts
it alone (no interpreter start-up, no imports: a first analysis of a small file runs before, for
the lazy imports). ``callgrind_annotate --inclusive=yes`` on the output then splits the count
(``__pyfunction_parse_module``: libcst's parse; ``builtin_compile``: CPython's ``ast.parse``).
Each run takes minutes under valgrind; compare counts of two source trees with ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import Any

from bench_static import default_root  # benchmarks/ is the script's folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "mode", choices=["bare", "phase1", "nochecks", "nocalls", "nopos", "follow", "firstrun"]
    )
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--analysed", type=int, default=12)
    ap.add_argument("--syntax-only", type=int, default=6)
    args = ap.parse_args()
    root = args.root or default_root()
    paths = sorted(root.rglob("*.py"))[:200]
    datas = [(p.read_bytes(), p) for p in paths]
    heavy = [x for x in datas if b"torch" in x[0] or b"forward" in x[0]]
    light = [x for x in datas if not (b"torch" in x[0] or b"forward" in x[0])]
    sub = heavy[:: max(1, len(heavy) // args.analysed)][: args.analysed]
    sub += light[:: max(1, len(light) // args.syntax_only)][: args.syntax_only]
    if args.mode == "firstrun":
        first_run_counts(root, paths)
        return
    import libcst

    if args.mode == "follow":
        follow_run(root, sub)
    elif args.mode == "bare":

        def bare(acc: int, item: tuple[bytes, Path]) -> int:
            try:
                libcst.parse_module(item[0])
            except Exception:
                pass
            return acc

        functools.reduce(bare, sub, 0)
    else:
        import compilelint.static.engine as E
        from compilelint.catalog import load_catalog

        catalog = load_catalog()
        codes = sorted(c for c in catalog.rules if catalog.rules[c].detector == "static")
        checks = E._checks_for(codes)
        if args.mode == "nochecks":
            checks = []
        elif args.mode == "nocalls":
            import compilelint.static.checks.base as B

            build = B.build_hooks

            def without_calls(w, chk):  # type: ignore[no-untyped-def]
                hooks = build(w, chk)
                hooks.pop(libcst.Call, None)
                return hooks

            B.build_hooks = without_calls  # type: ignore[assignment]
        elif args.mode == "nopos":
            import compilelint.static.positions as P

            P.spans_in_statements = lambda *a, **k: {}  # type: ignore[assignment]
        E._call_with_deep_stack = lambda fn: fn()  # type: ignore[assignment]  # one thread
        sys.setrecursionlimit(20_000)
        inputs = []
        for data, p in sub:
            mod, pkg = E.module_name(p)
            inputs.append((data, E.FileInput(str(p), os.path.realpath(p), mod, pkg)))
        warm = b"import torch\ndef forward(x):\n    return x.item()\n"
        E.analyze_source(warm, inputs[0][1], checks)

        def phase1(acc: int, item: tuple[bytes, E.FileInput]) -> int:
            E.analyze_source(item[0], item[1], checks)
            return acc

        with E._fewer_collections():
            functools.reduce(phase1, inputs, 0)
    print(f"{len(sub)} files, {sum(len(d) for d, _ in sub)} bytes", file=sys.stderr)


def follow_run(root: Path, sub: list[tuple[bytes, Path]]) -> None:
    """A first run with following (``--no-cache``, one process, following not bounded in
    time) over a copy of the subset: phase 1 of the files, then the library files following
    loads and the project computations."""
    import dataclasses
    import shutil
    import tempfile

    from bench_static import copy_corpus

    import compilelint.static.engine as E
    import compilelint.static.follow as F
    from compilelint.config import load_config

    (F.follow.__kwdefaults__ or {})["max_seconds"] = 1e9
    E._call_with_deep_stack = lambda fn: fn()  # type: ignore[assignment]  # one thread
    sys.setrecursionlimit(20_000)
    d = Path(tempfile.mkdtemp())
    try:
        copy_corpus(root, [p for _, p in sub], d)
        cfg = dataclasses.replace(load_config([str(d)]), jobs=1)
        warm = d / "_warm.py"
        warm.write_text("import torch\ndef forward(x):\n    return x.item()\n")
        E.scan([str(warm)], cfg, no_cache=True)  # the lazy imports
        warm.unlink()
        out: list[object] = []

        def run(acc: int, _: int) -> int:
            out.append(E.scan([str(d)], cfg, no_cache=True, want_project=True))
            return acc

        with E._fewer_collections():
            functools.reduce(run, [0], 0)
        res = out[0]
        print(f"follow: {res.follow}, findings {len(res.findings)}", file=sys.stderr)  # type: ignore[attr-defined]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def first_run_counts(root: Path, paths: list[Path]) -> None:
    """``firstrun``: the work counts of a first run (see the module's docstring)."""
    import cProfile
    import dataclasses
    import pstats
    import shutil
    import tempfile
    import time

    from bench_static import copy_corpus

    import compilelint.static.engine as E
    import compilelint.static.follow as F
    from compilelint.config import load_config
    from compilelint.static import libresolve as LR
    from compilelint.static.analysis.project import Project

    (F.follow.__kwdefaults__ or {})["max_seconds"] = 1e9
    counts: dict[str, int] = dict.fromkeys(
        [
            "computations",
            "library analyse calls",
            "library files analysed whole",
            "library bytes analysed whole",
            "critical-path bytes",
            "light reads",
            "library files begun in the pool",
            "library bytes begun in the pool",
        ],
        0,
    )
    calls: dict[str, int] = {
        "project+follow (the rest)": 0,
        "compute": 0,
        "light reads": 0,
        "findings": 0,
    }
    # CPython parses in this process (``ast.parse``: the pool's workers make phase 1's), by
    # the innermost profile running: [parses, bytes]
    parses: dict[str, list[int]] = {}
    prof: dict[str, cProfile.Profile] = {}

    def profiled(name: str, fn: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            # the innermost profile running (a light read inside a computation: read ahead)
            outer = next(reversed(prof.values()), None)
            if outer is not None:
                outer.disable()
            p = prof[name] = cProfile.Profile()
            p.enable()
            try:
                return fn(*a, **k)
            finally:
                p.disable()
                del prof[name]
                calls[name] += sum(v[1] for v in pstats.Stats(p).stats.values())  # type: ignore[attr-defined]
                if outer is not None:
                    outer.enable()

        return run

    compute = Project.compute

    def counted_compute(self: Project) -> None:
        counts["computations"] += 1
        return profiled("compute", compute)(self)

    Project.compute = counted_compute  # type: ignore[method-assign]
    light = LR.light_facts

    def counted_light(*a: Any) -> Any:
        counts["light reads"] += 1
        return profiled("light reads", light)(*a)

    LR.light_facts = counted_light  # type: ignore[assignment]
    analyse = E._Scan.analyse_files

    def counted_analyse(self: Any, items: list[Any], progress: Any = None) -> Any:
        libs = [len(it[0]) for it in items if it[3] == "all"]
        if libs:
            counts["library analyse calls"] += 1
            counts["library files analysed whole"] += len(libs)
            counts["library bytes analysed whole"] += sum(libs)
            counts["critical-path bytes"] += max(max(libs), sum(libs) // 2)
        return analyse(self, items, progress)

    E._Scan.analyse_files = counted_analyse  # type: ignore[method-assign]
    start = E._Scan.start_files

    def counted_start(self: Any, items: list[Any]) -> Any:
        libs = [len(it[0]) for it in items if it[3] == "all"]
        counts["library files begun in the pool"] += len(libs)
        counts["library bytes begun in the pool"] += sum(libs)
        return start(self, items)

    E._Scan.start_files = counted_start  # type: ignore[method-assign]
    for phase in ("compute_project", "follow_libraries"):
        setattr(E._Scan, phase, profiled("project+follow (the rest)", getattr(E._Scan, phase)))
    E._Scan.findings = profiled("findings", E._Scan.findings)  # type: ignore[method-assign]
    import ast

    ast_parse = ast.parse

    def counted_parse(source: Any, *a: Any, **k: Any) -> Any:
        got = parses.setdefault(next(reversed(prof), "other"), [0, 0])
        got[0] += 1
        got[1] += len(source)
        return ast_parse(source, *a, **k)

    ast.parse = counted_parse  # type: ignore[assignment]
    # the cyclic collector's runs, in this process and in the pool's workers (forked from it,
    # they inherit the callback and the log's descriptor): pid, generation, CPU, when
    import gc

    gfd, glog = tempfile.mkstemp(suffix=".gc")
    me, when, began = os.getpid(), ["scan"], [0.0]

    def on_collect(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.process_time()
            return
        cpu = time.process_time() - began[0]
        rec = f"{os.getpid()} {info['generation']} {cpu:.6f} {when[0]}\n"
        os.write(gfd, rec.encode())

    gc.callbacks.append(on_collect)
    d = Path(tempfile.mkdtemp())
    try:
        copy_corpus(root, paths, d)
        cwd = os.getcwd()
        os.chdir(d)
        cfg = dataclasses.replace(load_config(["."]), select=("ALL",))
        res = E.scan(["."], cfg, no_cache=True, want_project=True)
        # after the scan (the report and output): the collection the restored thresholds set off
        when[0] = "after"
        _made = [[] for _ in range(2000)]  # a report's worth of new objects
        os.chdir(cwd)
    finally:
        shutil.rmtree(d, ignore_errors=True)
        gc.callbacks.remove(on_collect)
        os.close(gfd)
    runs: dict[str, list[float]] = {}
    with open(glog) as fh:
        for line in fh:
            pid, gen, cpu, at = line.split()
            who = ("this process, " + at) if int(pid) == me else "the workers"
            got = runs.setdefault(f"{who}, generation {gen}", [0, 0.0])
            got[0] += 1
            got[1] += float(cpu)
    os.unlink(glog)
    for k, v in counts.items():
        print(f"{k:40} {v:>12,}")
    for k, v in calls.items():
        print(f"{'Python calls, ' + k:40} {v:>12,}")
    for k, (n, b) in sorted(parses.items()):
        print(f"{'CPython parses here, ' + k:40} {n:>12,} ({b:,} bytes)")
    for k, (n, cpu) in sorted(runs.items()):
        print(f"{'collections, ' + k:40} {int(n):>12,} ({cpu:.3f} s CPU)")
    fl = res.follow or {}
    print(
        f"findings {len(res.findings)}; follow: files {fl.get('files')}, light {fl.get('light')}, "
        f"upgraded {fl.get('upgraded')}, functions {fl.get('functions')}"
    )


if __name__ == "__main__":
    main()
