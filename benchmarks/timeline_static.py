"""Where a cold ``compilelint check`` spends its wall time: a timeline per process.

    python3 benchmarks/timeline_static.py [--src SRC] [--mode nofollow|first] [--first 200]
                                          [--repeat 1] [--jobs N] [--tasks] [--bare]

Runs ``compilelint check . --select ALL --format json --no-cache [--no-follow]`` as a separate
process (the CLI as a user runs it, the default workers), with ``PYTHONPATH`` set to ``SRC``
(default: this tree's ``src``), on a copy of the first N files of the installed transformers
package's ``models/`` folder (as ``ab_static.py``). A small bootstrap records, in that process
and in each of its pool's workers, the wall clock (``CLOCK_MONOTONIC``, shared by the processes)
and the process's own CPU (``time.process_time``) at: the interpreter's start (the wall time
before the bootstrap runs, measured from this script's spawn), the end of the imports, each
phase of the scan (``_Scan.timed``), the pool's start, each pool call (submitted, waited for),
each task in each worker (one file's phase 1), and the process's exit; also the CPU of named
serial work in this process (``Project.compute``, counted per phase, light reads of library
files, the re-parse of ``_loop_shadowed``, and following's steps: the predictions, the graph-op
search when it runs here, the resolutions dropped as files join, the factory, virtual and held
calls and the prunings). It needs only the standard library and compilelint's own dependencies.

It prints the critical path: this process's serial work before the first pool call, the pool's
start, each worker's busy CPU, its CPU between tasks (pickling results and arguments) and its
idle tail (how long before the pool's last result it ran out of work), this process's work
after the pool, the output and exit; then "parallel if perfect": this process's serial CPU plus
the workers' CPU over the number of workers, against the run's wall. ``--tasks`` lists each
worker's tasks (start, CPU, file); ``--bare`` also times a bare single-process
``libcst.parse_module`` of the same files (wall and CPU) in the same round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench_static import BARE_CPU, bare_parse, copy_corpus, default_root

# Runs in the checked process before compilelint's CLI: records events to CL_TIMELINE_LOG (an
# O_APPEND file descriptor the pool's forked workers inherit).
BOOT = r"""
import os, sys, time, json
_fd = os.open(os.environ["CL_TIMELINE_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
def _now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)
def ev(kind, name, **kw):
    rec = [os.getpid(), kind, name, _now(), time.process_time(), kw]
    os.write(_fd, (json.dumps(rec) + "\n").encode())
ev("mark", "boot")
import compilelint.cli as _cli
ev("mark", "cli imported")
import compilelint.static.engine as E
import compilelint.static.follow as F
import compilelint.static.libresolve as LR
import compilelint.static.analysis.project as P
ev("mark", "engine imported")
F.follow.__kwdefaults__["max_seconds"] = 1e9  # as ab_static.py: every run follows alike

def _span(name, fn):
    def wrapped(*a, **k):
        t, c = _now(), time.process_time()
        try:
            return fn(*a, **k)
        finally:
            ev("span", name, t0=t, c0=c)
    wrapped.__name__ = getattr(fn, "__name__", name)
    wrapped.__qualname__ = getattr(fn, "__qualname__", name)
    wrapped.__module__ = getattr(fn, "__module__", None)
    return wrapped

_timed = E._Scan.timed
def timed(self, name, fn, *args):
    ev("begin", name)
    try:
        return _timed(self, name, fn, *args)
    finally:
        ev("end", name)
E._Scan.timed = timed

_pool_for = E._Scan._pool_for
def _pool_for_logged(self, items):
    had = self._pool is not None
    if not had:
        ev("begin", "pool start")
    try:
        return _pool_for(self, items)
    finally:
        if not had:
            ev("end", "pool start", started=self._pool is not None, items=len(items))
E._Scan._pool_for = _pool_for_logged

_analyse_files = E._Scan.analyse_files
def analyse_files(self, items, progress=None):
    ev("begin", "analyse files")
    try:
        return _analyse_files(self, items, progress)
    finally:
        ev("end", "analyse files", items=len(items), pool=self._pool is not None)
E._Scan.analyse_files = analyse_files

_start_files = E._Scan.start_files
def start_files(self, items):
    wait = _start_files(self, items)
    if wait is None:
        return None
    ev("mark", "submitted", items=len(items))
    def waited():
        ev("begin", "wait")
        try:
            return wait()
        finally:
            ev("end", "wait", items=len(items))
    waited.ready = wait.ready  # the scan's spare work asks it (speed27)
    return waited
E._Scan.start_files = start_files

_init = E._init_worker
def _init_worker(*a, **k):
    ev("begin", "worker init")
    try:
        return _init(*a, **k)
    finally:
        ev("end", "worker init")
_init_worker.__qualname__ = "_init_worker"
E._init_worker = _init_worker

_worker = E._worker
def _worker_logged(item):
    t, c = _now(), time.process_time()
    out = _worker(item)
    ev("task", item[1].real, t0=t, c0=c, size=len(item[0]))
    return out
_worker_logged.__qualname__ = "_worker"
_worker_logged.__module__ = E.__name__
E._worker = _worker_logged

P.Project.compute = _span("Project.compute", P.Project.compute)
LR.light_facts = _span("light read", LR.light_facts)
# following's steps in this process (module-level names its loop looks up when it runs them)
for _name, _label in (
    ("predict_upgrades", "follow: prediction"),
    ("registering_modules", "follow: graph-op search here"),
    ("add_factory_calls", "follow: factory calls"),
    ("add_virtual_calls", "follow: virtual calls"),
    ("_resolve_held_arguments", "follow: held arguments"),
    ("prune_registry_calls", "follow: prune registry"),
    ("prune_virtual_calls", "follow: prune virtual"),
):
    if hasattr(F, _name):
        setattr(F, _name, _span(_label, getattr(F, _name)))
F.SharedResolutions.changed = _span("follow: shared.changed", F.SharedResolutions.changed)
E._Scan._loop_shadowed = _span("_loop_shadowed", E._Scan._loop_shadowed)
E._Scan.stored_results = _span("stored results", E._Scan.stored_results)

import atexit
_exited = []
def _exit():
    if _exited:
        return
    _exited.append(1)
    import resource
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    ev("mark", "exit", children=ch.ru_utime + ch.ru_stime)
atexit.register(_exit)
_os_exit = os._exit
def _hard_exit(code):
    if os.getpid() == _parent:  # the CLI ending its process without the teardown
        _exit()
    _os_exit(code)
_parent = os.getpid()
os._exit = _hard_exit
sys.argv[0] = "compilelint"
ev("mark", "main")
getattr(_cli, "run", _cli.main)()  # the console script's entry (``run`` where it exists)
"""


def run_once(
    src: str, mode: str, jobs: int | None, dst: Path, pycache: str | None
) -> tuple[list[list[Any]], float]:
    fd, log = tempfile.mkstemp(prefix="cl-timeline-", suffix=".jsonl")
    os.close(fd)
    args = ["check", ".", "--select", "ALL", "--format", "json", "--no-cache"]
    if mode == "nofollow":
        args.append("--no-follow")
    if jobs:
        args += ["--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=src, CL_TIMELINE_LOG=log)
    if pycache is not None:  # bytecode, as an installed package has it (written by a first run)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    spawn = time.clock_gettime(time.CLOCK_MONOTONIC)
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT, *args, "-o", os.devnull],
        cwd=dst,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    end = time.clock_gettime(time.CLOCK_MONOTONIC)
    with open(log) as fh:
        events = [json.loads(line) for line in fh]
    os.unlink(log)
    events.append([0, "mark", "spawn", spawn, 0.0, {}])
    events.append([0, "mark", "reaped", end, usage.ru_utime + usage.ru_stime, {}])
    return events, spawn


def report(
    events: list[list[Any]], spawn: float, show_tasks: bool, bare: tuple[float, float] | None
) -> None:
    parent = next(e[0] for e in events if e[2] == "boot")
    mine = [e for e in events if e[0] == parent]
    workers: dict[int, list[list[Any]]] = defaultdict(list)
    for e in events:
        if e[0] not in (parent, 0):
            workers[e[0]].append(e)

    def at(name: str, kind: str = "mark", last: bool = False) -> list[Any] | None:
        got = [e for e in mine if e[2] == name and e[1] == kind]
        return (got[-1] if last else got[0]) if got else None

    reaped, total_cpu = next((e[3], e[4]) for e in events if e[2] == "reaped")
    boot, ex = at("boot"), at("exit")
    assert boot is not None
    wall = reaped - spawn
    print(
        f"  wall, spawn to reaped: {wall:6.2f} s"
        + (
            f"  ({wall / bare[0]:.2f}x the bare parse: {bare[0]:.2f} s wall, {bare[1]:.2f} s CPU)"
            if bare
            else ""
        )
    )
    rows: list[tuple[str, float, float, float]] = []  # name, start (rel), wall, parent CPU

    def row(name: str, t0: float, t1: float, c0: float, c1: float) -> None:
        rows.append((name, t0 - spawn, t1 - t0, c1 - c0))

    row("interpreter start + site (CPU at boot)", spawn, boot[3], 0.0, boot[4])
    prev = boot
    for name in ("cli imported", "engine imported", "main"):
        e = at(name)
        if e is not None:
            row(f"  -> {name}", prev[3], e[3], prev[4], e[4])
            prev = e
    # the scan's phases, with the pool's start and pool calls inside them
    opened: dict[str, list[Any]] = {}
    first_phase = None
    for e in mine:
        if e[1] == "begin":
            opened[e[2]] = e
            if first_phase is None and e[2] == "discover":
                first_phase = e
                row("  -> config, settings (before discover)", prev[3], e[3], prev[4], e[4])
        elif e[1] == "end" and e[2] in opened:
            b = opened.pop(e[2])
            label = (
                e[2]
                if e[2]
                in (
                    "discover",
                    "read",
                    "stored results",
                    "analyse",
                    "project",
                    "follow",
                    "findings",
                    "store",
                )
                else "    " + e[2]
            )
            extra = {k: v for k, v in e[5].items()}
            row(f"{label} {extra if extra else ''}".rstrip(), b[3], e[3], b[4], e[4])
    store = at("store", "end", last=True)
    if store is not None and ex is not None:
        row("output (report, json) + exit", store[3], ex[3], store[4], ex[4])
    if ex is not None:
        # the CPU of the process and its reaped workers, less theirs at the exit mark
        rows.append(
            (
                "process teardown (exit -> reaped)",
                ex[3] - spawn,
                reaped - ex[3],
                total_cpu - ex[5]["children"] - ex[4],
            )
        )
    print(f"  {'this process (the parent)':50s} {'start':>7s} {'wall':>7s} {'CPU':>7s}")
    for name, t0, w, c in rows:
        print(f"  {name:50s} {t0:7.2f} {w:7.2f} {c:7.2f}")
    # named serial work, by the scan phase it ran in (a span nested in another is counted in
    # both: the prediction's and the computations' resolutions are theirs)
    phases = [
        (b[2], b[3], e[3])
        for b in mine
        if b[1] == "begin" and b[2] in ("project", "follow", "findings")
        for e in mine
        if e[1] == "end" and e[2] == b[2] and e[3] >= b[3]
    ]
    spans: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for e in mine:
        if e[1] == "span":
            where = next((n for n, t0, t1 in phases if t0 <= e[5]["t0"] <= t1), "")
            s = spans[e[2] + (f" [{where}]" if where and e[2] == "Project.compute" else "")]
            s[0] += 1
            s[1] += e[3] - e[5]["t0"]
            s[2] += e[4] - e[5]["c0"]
    for name, (n, w, c) in sorted(spans.items()):
        print(f"  {'  named: ' + name + f' ({int(n)} calls)':50s} {'':7s} {w:7.2f} {c:7.2f}")
    # the workers
    pool_start = at("pool start", "begin")
    total_busy = 0.0
    last_ends: list[float] = []
    for pid, evs in sorted(workers.items()):
        tasks = [e for e in evs if e[1] == "task"]
        init = [e for e in evs if e[2] == "worker init" and e[1] == "end"]
        busy = sum(e[4] - e[5]["c0"] for e in tasks)
        total_busy += busy
        if not tasks:
            continue
        first_t = min(e[5]["t0"] for e in tasks)
        last_t = max(e[3] for e in tasks)
        last_ends.append(last_t)
        cpu_end = max(e[4] for e in tasks)
        cpu_first = min(e[5]["c0"] for e in tasks)
        gaps = (cpu_end - cpu_first) - busy
        print(
            f"  worker {pid}: {len(tasks)} tasks, busy CPU {busy:6.2f} s, between tasks "
            f"{gaps:5.2f} s, CPU before its first task {cpu_first:5.2f} s, "
            f"first task at {first_t - spawn:6.2f} s, last ends {last_t - spawn:6.2f} s"
            + (f", init ends {init[0][3] - spawn:6.2f} s" if init else "")
        )
        if show_tasks:
            for e in sorted(tasks, key=lambda e: e[5]["t0"]):
                print(
                    f"      {e[5]['t0'] - spawn:7.2f} +{e[3] - e[5]['t0']:5.2f} s wall "
                    f"{e[4] - e[5]['c0']:5.2f} s CPU {e[5]['size']:8d} B {os.path.basename(e[2])}"
                )
    if last_ends:
        print(
            f"  idle tail: workers run out of work {max(last_ends) - min(last_ends):5.2f} s "
            "apart (the earlier one idles while the later finishes)"
        )
    serial = ex[4] if ex is not None else max(e[4] for e in mine)
    n = max(1, len(workers))
    if pool_start is not None:
        print(
            f"  parent CPU before the pool {pool_start[4]:5.2f} s (at {pool_start[3] - spawn:5.2f} s "
            f"wall); parent CPU in all {serial:5.2f} s; workers' CPU {total_busy:5.2f} s"
        )
    perfect = serial + total_busy / n
    print(
        f"  parallel if perfect (parent CPU + workers' task CPU / {n}): {perfect:5.2f} s; "
        f"measured wall {wall:5.2f} s; load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=str(here / "src"))
    ap.add_argument("--mode", default="nofollow", choices=["nofollow", "first"])
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--tasks", action="store_true", help="list each worker's tasks")
    ap.add_argument("--bare", action="store_true", help="time a bare parse in each round")
    ap.add_argument("--json", help="write the raw events of the last round here")
    ap.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run as the environment says (PYTHONDONTWRITEBYTECODE=1 compiles compilelint's "
        "modules from source on every run); default: bytecode written by a first, unmeasured run",
    )
    a = ap.parse_args()
    root = default_root()
    files = sorted(root.rglob("*.py"))[: a.first]
    work = Path(tempfile.mkdtemp(prefix="cl-timeline-"))
    try:
        tree = work / "tree"
        copy_corpus(root, files, tree)
        pycache = None if a.no_bytecode else str(work / "pycache")
        if pycache is not None:
            run_once(a.src, a.mode, a.jobs, tree, pycache)  # writes the bytecode
        for r in range(a.repeat):
            bare = (bare_parse(files), BARE_CPU[-1]) if a.bare else None
            print(f"round {r + 1}: {a.mode}, src {a.src}")
            events, spawn = run_once(a.src, a.mode, a.jobs, tree, pycache)
            report(events, spawn, a.tasks, bare)
            if a.json:
                Path(a.json).write_text(json.dumps({"spawn": spawn, "events": events}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
