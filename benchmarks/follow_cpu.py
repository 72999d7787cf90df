"""This process's CPU in a first run's follow phase, and how much resolving it did.

    PYTHONPATH=SRC python benchmarks/follow_cpu.py [--first 200]

Runs a first run (``engine.scan`` with ``--no-cache``, the default workers, following not
bounded in time, as ``count_static.py firstrun``) over a copy of the first N files of the
installed transformers package's ``models/`` folder, and prints this process's CPU
(``time.process_time``) in ``follow_libraries`` (the follow phase, waits for the pool not
counted), in ``Project.compute`` and in the light reads (``follow._read_all``), the calls of
``Project._resolve`` (resolutions computed), and, for versions that have it, the shared
resolution table's look-ups answered, resolutions kept and kept at the end. Run it with
``PYTHONPATH`` set to each of two trees, alternating, to compare them on a loaded machine.
"""

from __future__ import annotations

import argparse
import dataclasses
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
    args = ap.parse_args()
    import compilelint.static.analysis.project as P
    import compilelint.static.engine as E
    import compilelint.static.follow as F
    from compilelint.config import load_config

    (F.follow.__kwdefaults__ or {})["max_seconds"] = 1e9
    cpu = {"follow": 0.0, "compute": 0.0, "light reads": 0.0}
    calls = {"_resolve": 0}
    tables: list[Any] = []

    def timed(owner: Any, name: str, key: str) -> None:
        orig = getattr(owner, name)

        def wrapper(*a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return orig(*a, **k)
            finally:
                cpu[key] += time.process_time() - t

        setattr(owner, name, wrapper)

    timed(E._Scan, "follow_libraries", "follow")
    timed(P.Project, "compute", "compute")
    timed(F, "_read_all", "light reads")
    resolve = P.Project._resolve

    def counted(self: Any, path: str, ref: str, depth: int) -> Any:
        calls["_resolve"] += 1
        return resolve(self, path, ref, depth)

    P.Project._resolve = counted  # type: ignore[method-assign]
    shared = getattr(F, "SharedResolutions", None)
    if shared is not None:
        init = shared.__init__

        def kept(self: Any) -> None:
            init(self)
            tables.append(self)

        shared.__init__ = kept
    root = default_root()
    paths = sorted(root.rglob("*.py"))[: args.first]
    work = Path(tempfile.mkdtemp(prefix="cl-followcpu-"))
    cwd = os.getcwd()
    try:
        copy_corpus(root, paths, work)
        os.chdir(work)
        cfg = dataclasses.replace(load_config(["."]), select=("ALL",))
        c0 = time.process_time()
        res = E.scan(["."], cfg, no_cache=True, want_project=True)
        total = time.process_time() - c0
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)
    parts = ", ".join(f"{k} {v:.2f} s" for k, v in cpu.items())
    line = (
        f"this process's CPU {total:.2f} s; {parts}; Project._resolve calls {calls['_resolve']:,}"
    )
    for t in tables:
        line += f"; shared table: {t.hits:,} answered, {t.made:,} kept, {len(t.kept):,} at the end"
    follow = res.follow or {}
    print(
        f"{line}; {len(res.findings)} findings; library files {follow.get('files')}, upgraded "
        f"{follow.get('upgraded')}; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
