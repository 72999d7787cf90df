"""CPU time of the prediction path, two versions of the source interleaved per model.

    python benchmarks/ab_predict_spec.py --base /tmp/base/src [--new src]

Runs ``compilelint check NAME.py --input-spec spec.json --static-only --format json
--no-follow --no-cache`` on each of the 105 dev models of the fix corpus (copied alone, the spec
from its header, as ``fix_corpus_predict.py``), once with each version's ``src`` on
``PYTHONPATH``, alternating which goes first, and prints the CPU seconds (user + system of the
processes) each version took over all models.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import fix_corpus_predict as fcp  # benchmarks/ is the script's folder


def cpu_of(model: fcp.Model, src: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copy(model.path, work / model.path.name)
        first = model.path.read_text(encoding="utf-8").splitlines()[0]
        (work / "spec.json").write_text(first.removeprefix("# spec:"))
        cmd = [sys.executable, "-m", "compilelint", "check", model.path.name]
        cmd += ["--input-spec", "spec.json", "--static-only", "--format", "json"]
        cmd += ["--no-follow", "--no-cache", "--fail-on", "never"]
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        env = dict(os.environ, PYTHONPATH=src)
        subprocess.run(cmd, cwd=work, capture_output=True, env=env, check=False)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the base version's src folder")
    ap.add_argument("--new", default=str(Path(__file__).resolve().parent.parent / "src"))
    a = ap.parse_args()
    srcs = {"base": a.base, "new": a.new}
    total = dict.fromkeys(srcs, 0.0)
    models = fcp.load_set("dev")
    for i, m in enumerate(models):
        for name in list(srcs) if i % 2 == 0 else list(reversed(list(srcs))):
            total[name] += cpu_of(m, srcs[name])
    print(", ".join(f"{k} {v:.1f} s CPU" for k, v in total.items()), f"over {len(models)} models")


if __name__ == "__main__":
    main()
