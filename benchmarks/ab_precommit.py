"""A/B of the pre-commit hook's command on the same ten files, trees (or options) alternating.

    python benchmarks/ab_precommit.py NAME=SRC[@ARG...] NAME=SRC[@ARG...] [--rounds 5]

e.g. ``base=/tmp/hook24_base/src new=src`` (two trees), or ``pool=src one=src@--jobs@1`` (one
tree, the hook's own ``--jobs`` against one process). The files and the torch blocker are
``bench_precommit.py``'s (the first ten ``modeling_*.py`` of transformers' ``models/``); each
round runs every configuration (in turn, the order reversed every other round): a first commit
(``.compilelint_cache`` removed) then a next commit (a line appended to every file). Bytecode is
written by an unmeasured run of each configuration into a temporary ``PYTHONPYCACHEPREFIX``, as an
installed hook has it. Prints the median wall and CPU seconds (the hook and its workers) of each,
and whether every configuration printed the same findings (the summary line left out). On a
shared machine read the CPU figures: the wall times are the scheduler's.
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

from bench_precommit import default_root  # benchmarks/ is the script's folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("configs", nargs="+", help="NAME=SRC[@ARG...]")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--files", type=int, default=10)
    args = ap.parse_args()
    configs: dict[str, tuple[str, list[str]]] = {}
    for c in args.configs:
        name, spec = c.split("=", 1)
        src, *extra = spec.split("@")
        configs[name] = (str(Path(src).resolve()), extra)
    root = default_root()
    work = Path(tempfile.mkdtemp(prefix="cl-ab-precommit-"))
    repo = work / "repo"
    files: list[str] = []
    for f in sorted(root.rglob("modeling_*.py"))[: args.files]:
        rel = f.relative_to(root)
        (repo / rel.parent).mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, repo / rel)
        if (f.parent / "__init__.py").is_file():
            shutil.copy2(f.parent / "__init__.py", repo / rel.parent / "__init__.py")
        files.append(str(rel))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    blocker = work / "notorch" / "torch"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text('raise ImportError("torch is not installed")\n')
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")

    def cmd(name: str) -> tuple[list[str], dict[str, str]]:
        src, extra = configs[name]
        e = dict(env, PYTHONPATH=f"{work / 'notorch'}{os.pathsep}{src}")
        c = [sys.executable, "-m", "compilelint", "check", "--no-default-paths", *extra, *files]
        return c, e

    for name in configs:  # bytecode
        c, e = cmd(name)
        subprocess.run([*c, "--no-cache"], cwd=repo, env=e, capture_output=True)
    res: dict[tuple[str, str], list[tuple[float, float]]] = {
        (n, k): [] for n in configs for k in ("first", "next")
    }
    outputs: set[str] = set()

    def run(name: str, kind: str) -> None:
        c, e = cmd(name)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run(c, cwd=repo, env=e, capture_output=True, text=True)
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in (0, 1):
            sys.exit(f"ab_precommit: {name} failed ({p.returncode}): {p.stderr[-2000:]}")
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        res[(name, kind)].append((wall, cpu))
        outputs.add(
            kind + "\n".join(x for x in p.stdout.splitlines() if not x.startswith("Found "))
        )

    loads = []
    n = 0
    for r in range(args.rounds):
        loads.append(os.getloadavg()[0])
        for name in list(configs) if r % 2 == 0 else list(configs)[::-1]:
            shutil.rmtree(repo / ".compilelint_cache", ignore_errors=True)
            run(name, "first")
            n += 1
            for f in files:
                with open(repo / f, "a", encoding="utf-8") as fh:
                    fh.write(f"# ab edit {n}\n")
            run(name, "next")
    print(f"{len(files)} files; load average {min(loads):.1f} to {max(loads):.1f}")
    for (name, kind), v in res.items():
        print(
            f"  {name:10} {kind:5}  wall median {statistics.median(x[0] for x in v):6.3f} s  "
            f"CPU median {statistics.median(x[1] for x in v):6.3f} s  "
            f"(CPU all: {', '.join(f'{x[1]:.2f}' for x in v)})"
        )
    print("same findings in every run:", len(outputs) == 2)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
