"""Static-stage speed against two references on the same files.

    python benchmarks/bench_static.py [--root DIR] [--first N] [--skip-torchfix]
    python benchmarks/bench_static.py --ratios [--repeat 3] [--python PY]  # the issue-24 targets

DIR defaults to the installed transformers package's models/ folder. Measures, on the first N
files (sorted paths; default 200) and on the whole folder:
- bare ``libcst.parse_module`` over every file (the floor any libcst linter pays),
- ``compilelint check`` cold (no cache, every rule selected) and warm (cache filled, no change),
- TorchFix ``--select ALL`` (first N files only; it is slow),
- ``compilelint check one_file.py`` wall time including interpreter start.
Each compilelint and TorchFix run is a separate process, as a user would run it.

``--ratios`` measures the speed targets on the first N files, each run as a separate process and
repeated (``--repeat``, interleaved so that the machine's load hits every kind alike), each
against the bare single-process parse of the same files in the same round: cold with
``--no-follow``; cold with following, library facts already cached (a user's second project);
a first run (``--no-cache``: following parses the library files too); warm (unchanged tree). It
prints the median of each ratio and the load average. ``--python PY`` runs compilelint with
another interpreter (e.g. a venv without torch).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def default_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("transformers is not installed: pip install transformers (no weights needed)")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def copy_corpus(root: Path, files: list[Path], dst: Path) -> None:
    """``files`` (under ``root``) into ``dst`` at the same relative paths, with the packages'
    ``__init__.py`` files, so modules resolve as in the original tree."""
    for f in files:
        rel = f.relative_to(root)
        (dst / rel.parent).mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dst / rel)
    for init in root.rglob("__init__.py"):
        rel = init.relative_to(root)
        if (dst / rel.parent).is_dir() and not (dst / rel).exists():
            shutil.copy2(init, dst / rel)


def bare_parse(files: list[Path]) -> float:
    code = (
        "import sys, time, libcst\n"
        "files = sys.argv[1:]\n"
        "datas = [open(f, 'rb').read() for f in files]\n"
        "t = time.perf_counter()\n"
        "for d in datas:\n"
        "    try:\n        libcst.parse_module(d)\n    except Exception:\n        pass\n"
        "print(time.perf_counter() - t, time.process_time())\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(map(str, files)))
    out = subprocess.run(
        [sys.executable, "-c", code.replace("sys.argv[1:]", f"open({fh.name!r}).read().split()")],
        capture_output=True, text=True, check=True,
    )
    os.unlink(fh.name)
    wall, cpu = out.stdout.split()
    BARE_CPU.append(float(cpu))
    return float(wall)


CPU: list[float] = []  # CPU seconds (user + system, with workers) of each timed run
BARE_CPU: list[float] = []  # CPU seconds of each bare parse process (reading the files included)


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return wall


def ratios(args: argparse.Namespace, root: Path) -> None:
    files = sorted(root.rglob("*.py"))[: args.first]
    work = Path(tempfile.mkdtemp(prefix="cl-ratios-"))
    dst = work / "first"
    copy_corpus(root, files, dst)
    py = args.python or sys.executable
    cl = [py, "-m", "compilelint", "check", ".", "--select", "ALL", "--format", "json",
          "-o", str(work / "out.json")]
    cache = dst / ".compilelint_cache"
    rows: dict[str, list[float]] = {}
    loads = []
    for r in range(args.repeat):
        loads.append(os.getloadavg()[0])
        bare = bare_parse(files)
        got = {}
        cpus = {}
        shutil.rmtree(cache, ignore_errors=True)
        got["cold, --no-follow"] = timed([*cl, "--no-cache", "--no-follow"], dst)
        cpus["cold, --no-follow"] = CPU[-1]
        first = "first run (--no-cache: follows and parses library files)"
        got[first] = timed([*cl, "--no-cache"], dst)
        cpus[first] = CPU[-1]
        timed(cl, dst)  # fills the facts and library caches
        for p in cache.glob("facts-*"):
            p.unlink()
        for p in cache.glob("results-*"):
            p.unlink()
        got["cold, library facts cached"] = timed(cl, dst)
        cpus["cold, library facts cached"] = CPU[-1]
        got["warm (unchanged tree)"] = timed(cl, dst)
        cpus["warm (unchanged tree)"] = CPU[-1]
        print(f"round {r + 1}: bare parse {bare:.2f} s, load {loads[-1]:.1f}: "
              + ", ".join(f"{k} {v:.2f} s ({v / bare:.2f}x)" for k, v in got.items()))
        rows.setdefault("bare libcst.parse_module (one process)", []).append(bare)
        rows.setdefault("bare libcst.parse_module: CPU s", []).append(BARE_CPU[-1])
        for k, v in got.items():
            rows.setdefault(k, []).append(v)
            rows.setdefault(k + " / bare", []).append(v / bare)
            rows.setdefault(k + ": CPU s (all processes)", []).append(cpus[k])
            rows.setdefault(k + ": CPU / bare CPU", []).append(cpus[k] / BARE_CPU[-1])
    print(f"{len(files)} files; {args.repeat} rounds; load average {min(loads):.1f} to "
          f"{max(loads):.1f}; cores {os.cpu_count()}")
    for k, v in rows.items():
        unit = "x" if "/ bare" in k else " s"
        print(f"  {k:66} median {statistics.median(v):6.2f}{unit}  "
              f"(all: {', '.join(f'{x:.2f}' for x in v)})")
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ratios", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", default=None)
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--skip-torchfix", action="store_true")
    ap.add_argument("--skip-full", action="store_true")
    args = ap.parse_args()
    root = args.root or default_root()
    if args.ratios:
        ratios(args, root)
        return
    all_files = sorted(root.rglob("*.py"))
    lines = lambda fs: sum(p.read_bytes().count(b"\n") for p in fs)  # noqa: E731
    work = Path(tempfile.mkdtemp(prefix="cl-bench-"))
    print(f"tree: {root} ({len(all_files)} files, {lines(all_files)} lines); cores: {os.cpu_count()}")
    results: list[tuple[str, int, float, int]] = []

    def scope(name: str, files: list[Path]) -> None:
        dst = work / name
        # copy so the cache lives in a throwaway folder and paths are identical for every tool
        copy_corpus(root, files, dst)
        n, ln = len(files), lines(files)
        t_parse = bare_parse(files)
        results.append((f"{name}: bare libcst.parse_module", n, t_parse, ln))
        cl = [sys.executable, "-m", "compilelint.cli", "check", ".", "--select", "ALL",
              "--format", "json", "-o", str(work / f"{name}.json")]
        cache = dst / ".compilelint_cache"
        shutil.rmtree(cache, ignore_errors=True)
        t_cold = timed([*cl, "--no-cache"], dst)
        results.append((f"{name}: compilelint cold (all rules)", n, t_cold, ln))
        timed(cl, dst)  # fill the cache
        warm = [timed(cl, dst) for _ in range(3)]
        results.append((f"{name}: compilelint warm (median of 3)", n, statistics.median(warm), ln))
        if name == "first" and not args.skip_torchfix and shutil.which("torchfix"):
            t_tf = timed(["torchfix", "--select", "ALL", "."], dst)
            results.append((f"{name}: torchfix --select ALL", n, t_tf, ln))

    scope("first", all_files[: args.first])
    if not args.skip_full:
        scope("full", all_files)
    one = next(p for p in all_files if p.name.startswith("modeling_") and "bert" in p.name)
    singles = [
        timed([sys.executable, "-m", "compilelint.cli", "check", str(one), "--no-cache",
               "--format", "json"], work)
        for _ in range(5)
    ]
    results.append((f"single file {one.name} (process wall)", 1, statistics.median(singles),
                    lines([one])))
    print(f"{'what':48} {'files':>6} {'seconds':>9} {'files/s':>9} {'lines/s':>10}")
    for what, n, sec, ln in results:
        print(f"{what:48} {n:6d} {sec:9.2f} {n / sec:9.1f} {ln / sec:10.0f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
