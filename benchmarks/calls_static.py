"""Phase 1's Python-level work in function calls, which a loaded machine does not change.

    PYTHONPATH=SRC python benchmarks/calls_static.py [--root DIR] [--first 200] [--no-object-calls]
                                                     [--top 0]

Runs ``engine._analyze_source`` (syntax check, libcst parse, walk, checks, positions; calls
through objects of imported classes as a run that follows into installed packages records them,
unless ``--no-object-calls``) over the first N files (sorted paths) of the installed transformers
package's ``models/`` folder, on a thread with a large stack as the engine's deep-stack thread is
(its hand-off is bypassed, so that cProfile sees the walk), under cProfile, and prints the number
of Python-level calls: in all, of ``isinstance``, and of the functions named with ``--count``
(substrings of ``file:function``). Counts are the same however loaded the machine is, so two
versions of the source compare without wall or CPU noise (run once per ``PYTHONPATH``);
``--top N`` also prints the N functions with the most calls.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import threading
from pathlib import Path
from typing import Any

from bench_static import default_root  # benchmarks/ is the script's folder

DEFAULT_COUNTS = [
    "builtins.isinstance",
    "builtins.getattr",
    "dispatch.py:_own_walk",
    "guards.py:visit_Name",
    "guards.py:<genexpr>",
]


def run(args: argparse.Namespace) -> None:
    from compilelint.static import engine

    root = args.root or default_root()
    checks = engine._checks_for(list(engine.all_checks()))
    items = []
    for p in sorted(root.rglob("*.py"))[: args.first]:
        mod, pkg = engine.module_name(p)
        items.append((p.read_bytes(), engine.FileInput(str(p), str(p), mod, pkg)))
    oc = not args.no_object_calls
    warm = b"import torch\ndef forward(x):\n    return x.item()\n"
    engine._analyze_source(warm, items[0][1], checks, False, None, oc)  # the lazy imports
    prof = cProfile.Profile()
    prof.enable()
    with engine._fewer_collections():
        for data, inp in items:
            engine._analyze_source(data, inp, checks, False, None, oc)
    prof.disable()
    stats: Any = pstats.Stats(prof)
    table = stats.stats

    def calls(pattern: str) -> int:
        return sum(v[1] for k, v in table.items() if pattern in f"{k[0]}:{k[2]}")

    print(f"{len(items)} files, object calls {'on' if oc else 'off'}")
    print(f"  all Python-level calls: {sum(v[1] for v in table.values())}")
    for pattern in args.count or DEFAULT_COUNTS:
        print(f"  {pattern}: {calls(pattern)}")
    if args.top:
        stats.sort_stats("ncalls").print_stats(args.top)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--no-object-calls", action="store_true")
    ap.add_argument("--count", action="append", help="substring of file:function to count")
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    sys.setrecursionlimit(20_000)
    threading.stack_size(512 * 1024 * 1024)
    errors: list[BaseException] = []

    def target() -> None:
        try:
            run(args)
        except BaseException as exc:  # re-raised on the main thread
            errors.append(exc)

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if errors:
        raise errors[0]


if __name__ == "__main__":
    main()
