"""A first run's wall time on an idle 2-core machine, modelled from CPU times (which a loaded
machine changes much less than wall times).

    PYTHONPATH=SRC python benchmarks/schedule_static.py [--first 200] [--repeat 1]

Runs a first run (``engine.scan`` with ``--no-cache``, the default workers, following not bounded
in time, as ``count_static.py firstrun``) over a copy of the first N files of the installed
transformers package's ``models/`` folder, and records the CPU time of this process between
its calls to the worker pool, and the CPU time of each task the workers ran (phase 1 of a
file; for versions that have it, a read for resolution only). It then replays the run on a
model of the 2-core machine: this process's work runs in series; a pool call hands its tasks,
largest first as the engine does, to whichever of two workers is free first, from the moment
of the call; waiting for a call's results ends when its last task does. The model leaves out
process start-up, the pool's messages and the sharing of two cores between this process and
two busy workers, so it is below a real idle run's wall time; its differences between two
versions of the source are the differences of their serial paths. Prints the modelled wall
time of the run, of its project phase and of its following phase, with this process's and
the workers' CPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_static import copy_corpus, default_root  # benchmarks/ is the script's folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--timeline", action="store_true", help="print the modelled project and follow phases"
    )
    args = ap.parse_args()
    for _ in range(args.repeat):
        one_run(args.first, args.timeline)


_ORIG: dict[str, Any] = {}  # the log's path and the functions the workers run, unwrapped


def _log_task(key: str, t: float) -> None:
    with open(_ORIG["log"], "a") as fh:
        fh.write(json.dumps([key, time.process_time() - t]) + "\n")


def _logged_worker(item: Any) -> Any:  # in a worker (module level: the pool pickles it by name)
    t = time.process_time()
    out = _ORIG["worker"](item)
    _log_task(item[1].real, t)
    return out


def _logged_light(src: Any) -> Any:
    t = time.process_time()
    out = _ORIG["plain"](src)
    _log_task("L:" + src[1], t)
    return out


def one_run(first: int, timeline: bool = False) -> None:
    import compilelint.static.engine as E
    import compilelint.static.follow as F
    from compilelint.config import load_config
    from compilelint.static import libresolve as LR

    (F.follow.__kwdefaults__ or {})["max_seconds"] = 1e9
    fd, log = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    events: list[tuple[str, float, Any]] = []  # (kind, this process's CPU, what)

    def ev(kind: str, what: Any = None) -> None:
        events.append((kind, time.process_time(), what))

    saved = {
        "worker": E._worker,
        "plain": getattr(LR, "plain_light_facts", None),
        "scan": dict(E._Scan.__dict__),
    }
    _ORIG.update(log=log, worker=E._worker, plain=saved["plain"])
    E._worker = _logged_worker
    if saved["plain"] is not None:
        LR.plain_light_facts = _logged_light
    if hasattr(E._Scan, "start_files"):  # pool calls started early
        start = E._Scan.start_files

        def start_files(self: Any, items: Any, *rest: Any) -> Any:
            wait = start(self, items, *rest)
            if getattr(wait, "__name__", "") != "wait":  # analysed in this process
                return wait
            sid = len(events)
            ev("submit", [it[1].real for it in items])

            def waited() -> Any:
                out = wait()
                ev("wait", sid)
                return out

            return waited

        E._Scan.start_files = start_files  # type: ignore[method-assign]
    if hasattr(E._Scan, "light_files"):  # speed24 (reverted): light reads in the pool
        light = E._Scan.light_files

        def light_files(self: Any, items: Any) -> Any:
            if self._pool is None or len(items) < 2:
                return light(self, items)
            sid = len(events)
            ev("submit", ["L:" + it[1] for it in items])
            out = light(self, items)
            ev("wait", sid)
            return out

        E._Scan.light_files = light_files  # type: ignore[method-assign]
    # every pool call that is waited for at once
    analyse = E._Scan.analyse_files

    def analyse_files(self: Any, items: Any, progress: Any = None) -> Any:
        jobs = self.cfg.jobs or os.cpu_count() or 1
        if jobs <= 1 or len(items) < 2 or self._pool_for(items) is None:
            return analyse(self, items, progress)
        sid = len(events)
        ev("submit", [it[1].real for it in items])
        out = analyse(self, items, progress)
        ev("wait", sid)
        return out

    E._Scan.analyse_files = analyse_files  # type: ignore[method-assign]
    follow = E._Scan.follow_libraries

    def follow_libraries(self: Any) -> None:
        ev("follow")
        follow(self)
        ev("followed")

    E._Scan.follow_libraries = follow_libraries  # type: ignore[method-assign]
    compute_project = E._Scan.compute_project

    def project_phase(self: Any) -> None:
        ev("project")
        compute_project(self)
        ev("projected")

    E._Scan.compute_project = project_phase  # type: ignore[method-assign]
    root = default_root()
    paths = sorted(root.rglob("*.py"))[:first]
    work = Path(tempfile.mkdtemp(prefix="cl-schedule-"))
    cwd = os.getcwd()
    try:
        copy_corpus(root, paths, work)
        os.chdir(work)
        cfg = dataclasses.replace(load_config(["."]), select=("ALL",))
        ev("start")
        res = E.scan(["."], cfg, no_cache=True, want_project=True)
        ev("end")
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)
        E._worker = saved["worker"]
        if saved["plain"] is not None:
            LR.plain_light_facts = saved["plain"]
        for name, value in saved["scan"].items():
            if callable(value):
                setattr(E._Scan, name, value)
    tasks: dict[str, float] = {}
    with open(log) as fh:
        for line in fh:
            key, cpu = json.loads(line)
            tasks[key] = cpu
    os.unlink(log)
    # the replay
    clock = 0.0
    workers = [0.0, 0.0]
    ends: dict[int, float] = {}
    last = events[0][1]
    parent = 0.0
    marks: dict[str, tuple[float, float]] = {}
    for i, (kind, cpu, what) in enumerate(events):
        clock += cpu - last
        parent += cpu - last
        last = cpu
        if timeline and "project" in marks and kind in ("submit", "wait", "follow", "followed"):
            f0 = marks["project"][0]
            names = (
                ", ".join(f"{os.path.basename(k)} {tasks.get(k, 0.0):.2f}" for k in what)
                if kind == "submit"
                else ""
            )
            print(f"  {clock - f0:6.2f} s  {kind:8s} {names}")
        if kind == "submit":
            end = clock
            for key in sorted(what, key=lambda k: -tasks.get(k, 0.0)):
                k = min((0, 1), key=lambda j: max(workers[j], clock))
                workers[k] = max(workers[k], clock) + tasks.get(key, 0.0)
                end = max(end, workers[k])
            ends[i] = end
        elif kind == "wait":
            clock = max(clock, ends[what])
        else:
            marks[kind] = (clock, parent)
    f0, p0 = marks.get("follow", (clock, parent))
    f1, p1 = marks.get("followed", (clock, parent))
    lib = sum(c for k, c in tasks.items() if "site-packages" in k)
    j0, _ = marks.get("project", (clock, parent))
    j1, _ = marks.get("projected", (clock, parent))
    print(
        f"modelled wall {clock:.2f} s, project phase {j1 - j0:.2f} s, following {f1 - f0:.2f} s"
        f" (the two {f1 - j0:.2f} s); this process's CPU "
        f"{parent:.2f} s ({p1 - p0:.2f} s following); workers' CPU {sum(tasks.values()):.2f} s "
        f"({lib:.2f} s on library files); {len(res.findings)} findings; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
