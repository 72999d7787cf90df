"""Where the static stage's time goes, per phase, in one process.

    python benchmarks/profile_static.py [--root DIR] [--first N] [--file PATH] [--server]
                                        [--no-follow] [--lib-cache] [--cprofile N]

Scans the first N files (sorted paths, default 200) of the installed transformers package's
``models/`` folder, copied to a temporary folder, with ``compilelint check --select ALL --jobs 1
--no-cache`` run in this process (so that every phase is in one process and can be timed), and
prints the exclusive wall time of each phase:

- ``start-up``: importing the CLI (``python -c 'import compilelint.cli'`` minus a bare
  ``python -c pass``, measured as separate processes),
- ``config``, ``discover``, ``read`` (``read_source``), ``syntax`` (CPython's ``ast.parse``
  that runs before libcst), ``parse`` (libcst, incremental or not), ``walk`` (the per-file walk:
  names, abstract values, summaries), ``checks`` (the checks' hooks called by the walk),
  ``positions`` (line/column spans of candidates and call sites), ``object calls`` (calls
  through objects), ``reachability`` (``Project.compute``: what is traced, what is a tensor),
  ``following`` (into installed packages, excluding the parse/walk of library files, which count
  in their phases), ``caches`` (facts and library caches, to/from plain data), ``output``
  (reporters), ``other`` (the rest of the run's wall time: the scan's glue, hashing, findings).

Phases are measured by wrapping the engine's functions (exclusive time: a phase nested in
another is subtracted from it), so the script works on any version of the engine that keeps
those names; a name that is missing is reported as such. ``--file PATH`` profiles one file (its
folder is copied, the file alone is scanned). ``--server`` profiles the editor server instead: an
``Analyzer`` checks the file once (cold), then 20 edits spread through the file (each inserts a
``.item()`` line in a ``forward`` and then takes it out), and the phases are the sum over the
edits. ``--lib-cache`` keeps the library facts cache (a second run with following, as a user's
second scan). ``--cprofile N`` also prints the N functions with the largest own time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import importlib
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench_static import copy_corpus  # benchmarks/ is the script's folder

PHASES = [
    "start-up",
    "config",
    "discover",
    "read",
    "syntax",
    "parse",
    "walk",
    "checks",
    "positions",
    "object calls",
    "reachability",
    "following",
    "caches",
    "output",
    "other",
]


class Timer:
    """Exclusive time per phase (``clock``: wall by default): entering a phase pauses the one
    it is nested in."""

    def __init__(
        self, phases: list[str] | None = None, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        phases = PHASES if phases is None else phases
        self.total: dict[str, float] = dict.fromkeys(phases, 0.0)
        self.calls: dict[str, int] = dict.fromkeys(phases, 0)
        self.stack: list[tuple[str, float]] = []
        self.clock = clock

    def enter(self, phase: str) -> None:
        now = self.clock()
        if self.stack:
            outer, since = self.stack[-1]
            self.total[outer] += now - since
        self.stack.append((phase, now))
        self.calls[phase] += 1

    def leave(self) -> None:
        now = self.clock()
        phase, since = self.stack.pop()
        self.total[phase] += now - since
        if self.stack:
            outer, _ = self.stack[-1]
            self.stack[-1] = (outer, now)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.enter(name)
        try:
            yield
        finally:
            self.leave()

    def wrap(self, fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*a: Any, **k: Any) -> Any:
            self.enter(phase)
            try:
                return fn(*a, **k)
            finally:
                self.leave()

        inner.__profile_wrapped__ = True  # type: ignore[attr-defined]
        return inner


# (module, attribute path, phase): functions to time. Missing ones are listed, not fatal.
TARGETS: list[tuple[str, str, str]] = [
    ("compilelint.config", "load_config", "config"),
    ("compilelint.api", "load_config", "config"),
    ("compilelint.cli", "load_config", "config"),
    ("compilelint.lsp.analyzer", "load_config", "config"),
    ("compilelint.static.engine", "load_config", "config"),
    ("compilelint.static.engine", "discover", "discover"),
    ("compilelint.static.engine", "read_source", "read"),
    ("compilelint.static.engine", "_python_error", "syntax"),
    ("libcst", "parse_module", "parse"),
    ("compilelint.static.incremental", "IncrementalParser.parse", "parse"),
    ("compilelint.static.analysis.walker", "FileWalker.walk_module", "walk"),
    ("compilelint.static.positions", "spans", "positions"),
    ("compilelint.static.positions", "spans_in_statements", "positions"),
    ("compilelint.static.engine", "add_object_calls", "object calls"),
    ("compilelint.static.analysis.dispatch", "add_object_calls", "object calls"),
    ("compilelint.static.analysis.project", "Project.compute", "reachability"),
    ("compilelint.static.engine", "follow", "following"),
    ("compilelint.static.engine", "_facts_to_data", "caches"),
    ("compilelint.static.engine", "_facts_from_data", "caches"),
    ("compilelint.static.engine", "Cache.get", "caches"),
    ("compilelint.static.engine", "Cache.put", "caches"),
    ("compilelint.static.engine", "Cache.save", "caches"),
    ("compilelint.static.engine", "Cache.get_results", "caches"),
    ("compilelint.static.engine", "Cache.put_results", "caches"),
    ("compilelint.static.follow", "LibraryCache._table", "caches"),
    ("compilelint.static.follow", "LibraryCache.get", "caches"),
    ("compilelint.static.follow", "LibraryCache.put", "caches"),
    ("compilelint.static.follow", "LibraryCache.save", "caches"),
    ("compilelint.static.follow", "_load", "caches"),
    ("compilelint.cli", "_write_reports", "output"),
]


def install(
    timer: Timer, targets: list[tuple[str, str, str]] | None = None, hooks: bool = True
) -> list[str]:
    """Wrap each of ``targets`` (default :data:`TARGETS`) in ``timer``'s phase; ``hooks``:
    every hook a check registers too. Returns the targets not found."""
    missing = []
    for modname, attr, phase in TARGETS if targets is None else targets:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            missing.append(f"{modname}.{attr}")
            continue
        owner: Any = mod
        *path, name = attr.split(".")
        try:
            for p in path:
                owner = getattr(owner, p)
            fn = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        except (AttributeError, KeyError):
            missing.append(f"{modname}.{attr}")
            continue
        if getattr(fn, "__profile_wrapped__", False):
            continue
        setattr(owner, name, timer.wrap(fn, phase))
    if not hooks:
        return missing
    # checks: every hook a check registers is timed (they run inside the walk)
    from compilelint.static.checks import base

    orig = base.build_hooks

    def build_hooks(walker: Any, checks: Any) -> Any:
        hooks = orig(walker, checks)
        return {t: [timer.wrap(h, "checks") for h in hs] for t, hs in hooks.items()}

    for modname in ("compilelint.static.checks.base", "compilelint.static.engine"):
        mod = importlib.import_module(modname)
        if hasattr(mod, "build_hooks"):
            mod.build_hooks = build_hooks  # type: ignore[attr-defined]
    return missing


def wrapper_overhead(n: int = 200_000) -> float:
    """Seconds a wrapped call costs more than a plain one."""

    def f(x: object) -> None:
        return None

    t = Timer()
    g = t.wrap(f, "other")
    t.enter("walk")
    best = []
    for _ in range(3):
        t0 = time.perf_counter()
        for i in range(n):
            f(i)
        t1 = time.perf_counter()
        for i in range(n):
            g(i)
        t2 = time.perf_counter()
        best.append(((t2 - t1) - (t1 - t0)) / n)
    return max(min(best), 0.0)


def startup_seconds(repeat: int = 5) -> float:
    def run(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t

    bare = statistics.median(run("pass") for _ in range(repeat))
    cli = statistics.median(run("import compilelint.cli") for _ in range(repeat))
    return max(cli - bare, 0.0)


def default_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("profile_static: needs transformers installed")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def bare_parse(files: list[Path]) -> float:
    import libcst

    datas = [f.read_bytes() for f in files]
    t = time.perf_counter()
    for d in datas:
        with contextlib.suppress(Exception):
            libcst.parse_module(d)
    return time.perf_counter() - t


def edit_sites(lines: list[str], n: int) -> list[tuple[int, str]]:
    """``n`` insertion points, the first body line of ``forward`` methods spread over the file."""
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
                k += 1
                while '"""' not in lines[k]:
                    k += 1
                k += 1
        sites.append((k, " " * indent))
    if not sites:
        sys.exit("profile_static: no forward() in the file")
    step = max(len(sites) / max(n // 2, 1), 1)
    return [sites[min(int(i * step), len(sites) - 1)] for i in range(max(n // 2, 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--file", type=Path, default=None, help="profile one file instead")
    ap.add_argument("--server", action="store_true", help="profile the editor server's edits")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--no-follow", action="store_true")
    ap.add_argument("--lib-cache", action="store_true", help="keep the library facts cache")
    ap.add_argument("--cprofile", type=int, default=0)
    args = ap.parse_args()

    root = args.root or default_root()
    work = Path(tempfile.mkdtemp(prefix="cl-profile-"))
    try:
        if args.file or args.server:
            one = args.file or root / "wav2vec2" / "modeling_wav2vec2.py"
            shutil.copytree(
                one.parent, work / one.parent.name, ignore=shutil.ignore_patterns("__pycache__")
            )
            files = [work / one.parent.name / one.name]
            what = f"{one.parent.name}/{one.name}"
            bare_files = files
        else:
            all_files = sorted(root.rglob("*.py"))[: args.first]
            copy_corpus(root, all_files, work)
            files = [work]
            bare_files = all_files
            what = f"first {len(all_files)} files of {root}"
        lines = sum(f.read_bytes().count(b"\n") for f in bare_files if f.is_file())
        startup = startup_seconds()

        timer = Timer()
        import compilelint.cli  # noqa: F401  (imported here: start-up is measured apart)

        missing = install(timer)
        os.chdir(work)
        prof = cProfile.Profile() if args.cprofile else None
        if args.server:
            wall, note = _profile_server(timer, files[0], args, prof)
        else:
            wall, note = _profile_check(timer, files, args, prof)
        timer.stack.clear()
        done, calls = dict(timer.total), dict(timer.calls)
        t_bare = bare_parse(bare_files)  # libcst.parse_module is wrapped: restore the totals
        timer.total, timer.calls = done, calls
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)

    # the wrappers' own cost (the checks' hooks are called hundreds of thousands of times):
    # measured here and taken off each phase and the wall time
    over = wrapper_overhead()
    for p in PHASES:
        cost = over * timer.calls[p]
        timer.total[p] = max(timer.total[p] - cost, 0.0)
        wall -= cost
    timer.total["start-up"] = startup
    timer.total["other"] = max(wall - sum(v for k, v in timer.total.items() if k != "start-up"), 0)
    print(f"profile of: {what} ({lines} lines); {note}")
    print(f"python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'phase':14} {'seconds':>9} {'share':>7} {'calls':>8}")
    total = wall + startup
    for p in PHASES:
        v = timer.total[p]
        print(f"{p:14} {v:9.3f} {v / total:7.1%} {timer.calls[p]:8d}")
    print(f"{'total':14} {total:9.3f}")
    print(
        f"bare libcst.parse_module of the same files, this process: {t_bare:.3f} s "
        f"(run / bare parse: {total / t_bare:.2f}x)"
    )
    if missing:
        print("not found (not timed): " + ", ".join(missing))
    if prof is not None:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(args.cprofile)
        print(s.getvalue())


def _profile_check(
    timer: Timer, files: list[Path], args: argparse.Namespace, prof: cProfile.Profile | None
) -> tuple[float, str]:
    from compilelint import cli

    argv = [
        "check",
        *map(str, files),
        "--select",
        "ALL",
        "--jobs",
        "1",
        "--format",
        "json",
        "-o",
        os.devnull,
    ]
    if args.no_follow:
        argv.append("--no-follow")
    if args.lib_cache:
        # fill the library cache first (facts per package version), then drop the files' cache
        with contextlib.suppress(SystemExit):
            cli.main(argv, standalone_mode=False)
        for p in Path(".compilelint_cache").glob("facts-*"):
            p.unlink()
        for p in Path(".compilelint_cache").glob("results-*"):
            p.unlink()
        timer.__init__()  # type: ignore[misc]
    else:
        argv.append("--no-cache")
    t = time.perf_counter()
    if prof:
        prof.enable()
    try:
        cli.main(argv, standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (None, 0, 1):
            sys.exit(f"profile_static: compilelint check failed ({exc.code})")
    if prof:
        prof.disable()
    note = "check --jobs 1" + (", --no-follow" if args.no_follow else "")
    note += ", library facts cached" if args.lib_cache else ", --no-cache"
    return time.perf_counter() - t, note


def _profile_server(
    timer: Timer, path: Path, args: argparse.Namespace, prof: cProfile.Profile | None
) -> tuple[float, str]:
    from compilelint.lsp.analyzer import Analyzer

    an = Analyzer()
    text = path.read_text(encoding="utf-8")
    an.check(str(path), text)  # cold open
    lines = text.split("\n")
    sites = edit_sites(lines, args.edits)
    timer.__init__()  # type: ignore[misc]
    per: list[float] = []
    t = time.perf_counter()
    if prof:
        prof.enable()
    for k, indent in sites:
        new = list(lines)
        new.insert(k, f"{indent}_probe = torch.zeros(1).item()")
        for body in ("\n".join(new), text):
            t1 = time.perf_counter()
            an.check(str(path), body)
            per.append(time.perf_counter() - t1)
    if prof:
        prof.disable()
    wall = time.perf_counter() - t
    per.sort()
    note = (
        f"server: {len(per)} edits, median {statistics.median(per) * 1000:.0f} ms, "
        f"p95 {per[int(0.95 * (len(per) - 1))] * 1000:.0f} ms per edit (phases: sum)"
    )
    return wall, note


if __name__ == "__main__":
    main()
