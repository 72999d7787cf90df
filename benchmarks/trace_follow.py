"""The order of a first run's following: which library file is read, begun, waited for and
computed over, and when.

    PYTHONPATH=SRC python benchmarks/trace_follow.py [--first 200]

Runs a first run (``engine.scan`` with ``--no-cache``, the default workers, following not
bounded in time, as ``count_static.py firstrun``) over a copy of the first N files of the
installed transformers package's ``models/`` folder, and prints one line per event of the
follow phase with the wall clock since the scan began: each light read (``light``: the file,
``ok`` or ``HEAVY`` when it cannot be light, its bytes), each prediction (the files it names),
each start of library files in the pool (``start``) and the wait for them (``waited``, with
how long this process waited), each library analysis waited for at once (``analyse``), each
``Project.compute`` (its wall) and the demands each recording gathered (``demand``). A light
read inside a computation or a prediction is a file read ahead; a ``start`` between a
computation's begin and its line is a file begun while it ran. The wall clock is this
machine's (a loaded machine stretches it): read the order, and compare two trees' orders.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_static import copy_corpus, default_root  # benchmarks/ is the script's folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", type=int, default=200)
    args = ap.parse_args()

    import compilelint.static.engine as E
    import compilelint.static.follow as F
    from compilelint.config import load_config
    from compilelint.static import libresolve as LR
    from compilelint.static.analysis.project import Project

    (F.follow.__kwdefaults__ or {})["max_seconds"] = 1e9
    t0 = [time.perf_counter()]

    def log(*what: object) -> None:
        print(f"{time.perf_counter() - t0[0]:7.3f}", *what, flush=True)

    def short(p: str) -> str:
        return p.split("site-packages" + os.sep)[-1]

    compute = Project.compute

    def timed_compute(self: Project) -> None:
        t = time.perf_counter()
        compute(self)
        log("compute", f"{time.perf_counter() - t:.3f}", type(self).__name__)

    Project.compute = timed_compute  # type: ignore[method-assign]
    light = LR.light_facts

    def light_facts(data: bytes, path: str, module: str, pkg: bool) -> Any:
        got = light(data, path, module, pkg)
        log("light", short(path), "ok" if got is not None else "HEAVY", len(data))
        return got

    LR.light_facts = light_facts  # type: ignore[assignment]
    predict = F.predict_upgrades

    def predicted(before: Any, pre: Any) -> set[str]:
        got = predict(before, pre)
        log("predict", sorted(short(p) for p in got))
        return got

    F.predict_upgrades = predicted
    start = E._Scan.start_files

    def start_files(self: Any, items: list[Any]) -> Any:
        wait = start(self, items)
        names = [short(it[1].path) for it in items]
        log("start", names)
        if wait is None:
            return None

        def waited() -> Any:
            t = time.perf_counter()
            out = wait()
            log("waited", names, f"{time.perf_counter() - t:.3f}")
            return out

        waited.ready = wait.ready  # type: ignore[attr-defined]  # the scan's spare work asks it
        return waited

    E._Scan.start_files = start_files  # type: ignore[method-assign]
    analyse = E._Scan.analyse_files

    def analyse_files(self: Any, items: list[Any], progress: Any = None) -> Any:
        libs = [short(it[1].path) for it in items if it[3] == "all"]
        t = time.perf_counter()
        out = analyse(self, items, progress)
        if libs:
            log("analyse", libs, f"{time.perf_counter() - t:.3f}")
        return out

    E._Scan.analyse_files = analyse_files  # type: ignore[method-assign]
    recording = LR.Demand.recording

    @contextlib.contextmanager
    def logged(**kw: Any) -> Iterator[set[str]]:
        with recording(**kw) as demand:
            yield demand
            log("demand", sorted(short(p) for p in demand))

    LR.Demand.recording = logged  # type: ignore[method-assign,assignment]
    follow = E._Scan.follow_libraries

    def follow_libraries(self: Any) -> None:
        log("follow begins")
        follow(self)
        log("follow ends")

    E._Scan.follow_libraries = follow_libraries  # type: ignore[method-assign]
    root = default_root()
    paths = sorted(root.rglob("*.py"))[: args.first]
    work = Path(tempfile.mkdtemp(prefix="cl-trace-"))
    cwd = os.getcwd()
    try:
        copy_corpus(root, paths, work)
        os.chdir(work)
        cfg = dataclasses.replace(load_config(["."]), select=("ALL",))
        t0[0] = time.perf_counter()
        res = E.scan(["."], cfg, no_cache=True, want_project=True)
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)
    log("done", len(res.findings), "findings;", res.follow)


if __name__ == "__main__":
    main()
