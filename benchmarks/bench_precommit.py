"""The pre-commit hook's wall time on a commit of ten changed model files, torch not importable.

    python benchmarks/bench_precommit.py [--files 10] [--repeat 3] [--jobs N]

Copies the first ``--files`` ``modeling_*.py`` files (sorted paths) of the installed
transformers package's ``models/`` folder into a temporary git repository (each in its package
folder, with its ``__init__.py``), then runs the hook's command line, ``compilelint check
--no-default-paths FILE...`` (``.pre-commit-hooks.yaml``), as a separate process with torch made
unimportable (a ``torch`` package on ``PYTHONPATH`` whose import raises ``ImportError``):

- ``first commit``: nothing cached (following parses the library files the models reach),
- ``next commit``: every file changed (a line appended), the library facts cached, as on every
  commit after the first one in a repository.

Each is repeated; the medians are printed with the bare single-process ``libcst.parse_module``
time of the same files and the load average, and the CPU time of the hook's processes (user +
system, the process and its workers), which the load of a shared machine inflates less than
the wall time. pre-commit's own start-up is not included.

The hook runs with compiled bytecode, as from the package pre-commit installs (``pip install``
compiles it): the modules it imports are compiled by a first, unmeasured run into a bytecode
folder of the temporary tree (``PYTHONPYCACHEPREFIX``), whatever ``PYTHONDONTWRITEBYTECODE``
says in the calling environment; with that set and no bytecode, each run compiled compilelint's
modules from source again (about 0.14 s of CPU per run on the shared 2-core machine).
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
        sys.exit("bench_precommit: needs transformers installed")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def bare_parse(files: list[Path]) -> float:
    import libcst

    datas = [f.read_bytes() for f in files]
    t = time.perf_counter()
    for d in datas:
        libcst.parse_module(d)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--jobs", type=int, default=None, help="pass --jobs N to the hook (default: its own)"
    )
    args = ap.parse_args()
    root = default_root()
    picked = sorted(root.rglob("modeling_*.py"))[: args.files]
    work = Path(tempfile.mkdtemp(prefix="cl-precommit-"))
    repo = work / "repo"
    files = []
    for f in picked:
        rel = f.relative_to(root)
        (repo / rel.parent).mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, repo / rel)
        init = f.parent / "__init__.py"
        if init.is_file():
            shutil.copy2(init, repo / rel.parent / "__init__.py")
        files.append(repo / rel)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    blocker = work / "notorch" / "torch"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text('raise ImportError("torch is not installed")\n')
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(work / "notorch"), *filter(None, [env.get("PYTHONPATH")])]
    )
    # bytecode as an installed package has it (see the docstring): written by a first,
    # unmeasured run below, for every module the hook imports (the standard library's too,
    # since a bytecode folder replaces the ``__pycache__`` folders)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    probe = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True)
    assert probe.returncode != 0, "torch is still importable"
    cmd = [
        sys.executable,
        "-m",
        "compilelint",
        "check",
        "--no-default-paths",
        *(["--jobs", str(args.jobs)] if args.jobs is not None else []),
        *(str(f.relative_to(repo)) for f in files),
    ]

    cpu: dict[str, list[float]] = {"first": [], "next": []}

    def run(kind: str) -> float:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[kind].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        if p.returncode not in (0, 1):
            sys.exit(f"bench_precommit: the hook failed ({p.returncode}): {p.stderr[-2000:]}")
        return wall

    subprocess.run([*cmd, "--no-cache"], cwd=repo, env=env, capture_output=True)  # bytecode
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    first, nxt, bare, loads = [], [], [], []
    for r in range(args.repeat):
        loads.append(os.getloadavg()[0])
        shutil.rmtree(repo / ".compilelint_cache", ignore_errors=True)
        first.append(run("first"))
        for f in files:  # every file changed: the facts cache misses, the library facts hit
            with open(f, "a", encoding="utf-8") as fh:
                fh.write(f"# edit {r}\n")
        nxt.append(run("next"))
        bare.append(bare_parse(files))
    print(
        f"{len(files)} files, {lines} lines; load average {min(loads):.1f} to "
        f"{max(loads):.1f}; cores {os.cpu_count()}; torch blocked"
    )
    for name, v in (
        ("first commit (nothing cached)", first),
        ("  CPU seconds (all processes)", cpu["first"]),
        ("next commit (library facts cached)", nxt),
        ("  CPU seconds (all processes)", cpu["next"]),
        ("bare libcst.parse_module, one process", bare),
    ):
        print(
            f"  {name:40} median {statistics.median(v):6.2f} s  "
            f"(all: {', '.join(f'{x:.2f}' for x in v)})"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
