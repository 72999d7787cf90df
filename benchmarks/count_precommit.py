"""The pre-commit hook's cost in instructions (valgrind), which a loaded machine does not change.

    python benchmarks/count_precommit.py SRC [SRC ...] [--files 10] [--jobs N] [--first]

For each SRC (a ``src`` folder of compilelint; ``PYTHONPATH=SRC``), on the repository that
``bench_precommit.py`` builds (the first ten ``modeling_*.py`` files of the installed
transformers package, torch made unimportable): runs the hook's command line once to fill the
library facts cache, appends a line to every file (a "next commit": every file changed, the
library facts cached) and runs it again under ``valgrind --tool=callgrind``; ``--first`` counts
a first commit instead (nothing cached). The pool's workers are forked processes, which
callgrind follows: the count is the sum over the process and its workers (instructions
executed in user space: the interpreter's start-up, imports, the scan, the report). Each SRC
takes a few minutes. SRC trees are byte-compiled first (``compileall``, as an installed
package is), so both pay the same for their imports.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_precommit import default_root  # benchmarks/ is the script's folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("srcs", nargs="+")
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--jobs", default=None, help="--jobs for the hook (default: the CLI's)")
    ap.add_argument("--first", action="store_true", help="count a first commit (nothing cached)")
    a = ap.parse_args()
    root = default_root()
    picked = sorted(root.rglob("modeling_*.py"))[: a.files]
    work = Path(tempfile.mkdtemp(prefix="cl-count-precommit-"))
    blocker = work / "notorch" / "torch"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text('raise ImportError("torch is not installed")\n')
    try:
        for n, src in enumerate(a.srcs):
            src = os.path.abspath(src)
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", src], check=True, capture_output=True
            )
            repo = work / f"repo{n}"
            rels = []
            for f in picked:
                rel = f.relative_to(root)
                (repo / rel.parent).mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, repo / rel)
                init = f.parent / "__init__.py"
                if init.is_file():
                    shutil.copy2(init, repo / rel.parent / "__init__.py")
                rels.append(str(rel))
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(work / "notorch"), src]))
            cmd = [sys.executable, "-m", "compilelint", "check", "--no-default-paths"]
            if a.jobs is not None:
                cmd += ["--jobs", a.jobs]
            cmd += rels
            if not a.first:
                subprocess.run(cmd, cwd=repo, env=env, capture_output=True)
                for r in rels:
                    with open(repo / r, "a", encoding="utf-8") as fh:
                        fh.write("# edit\n")
            out = work / f"cg{n}"
            out.mkdir()
            p = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={out}/callgrind.out.%p",
                    *cmd,
                ],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
            )
            if p.returncode not in (0, 1):
                sys.exit(f"count_precommit: the hook failed ({p.returncode}): {p.stderr[-2000:]}")
            per = []
            for fn in sorted(glob.glob(f"{out}/callgrind.out.*")):
                text = Path(fn).read_text(errors="replace")
                m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
                if m:
                    per.append(int(m.group(1)))
            findings = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            print(
                f"{src}: {sum(per) / 1e9:.3f} x10^9 instructions "
                f"({len(per)} processes: {', '.join(f'{x / 1e9:.3f}' for x in sorted(per, reverse=True))})"
                f"  [{findings[:80]}]",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
