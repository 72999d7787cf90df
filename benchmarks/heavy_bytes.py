"""How well following's byte tests tell a library file's verdict before its light read
(branch speed24o): over every ``.py`` file of the installed packages (the running
environment's site-packages), the confusion counts of ``libresolve.may_be_heavy`` (a yes is
needed for every file ``light_facts`` refuses: it may not miss one) and of
``libresolve.must_be_heavy`` (following begins a yes's whole analysis before its light read: a
yes to a light file costs a worker a whole analysis, a no to a refused file only waits for its
light read, as before).

    PYTHONPATH=SRC python benchmarks/heavy_bytes.py [--site DIR] [--only transformers,...]

A file is *refused* when it parses and ``light_facts`` gives None (the module name is its path
below the site folder). Prints the counts per test, the byte tests' CPU, and the files each
test gets wrong (``must_be_heavy``'s yes to a light file, ``may_be_heavy``'s no to a refused one).
"""

from __future__ import annotations

import argparse
import ast
import os
import sysconfig
import time
from collections import Counter

from compilelint.static import libresolve as LR


def _files(site: str, only: set[str] | None) -> list[str]:
    out = []
    for root, dirs, files in os.walk(site):
        dirs.sort()
        rel = os.path.relpath(root, site)
        if only is not None and rel.split(os.sep)[0] not in only and rel != ".":
            continue
        for name in sorted(files):
            if name.endswith(".py"):
                if only is not None and rel == "." and name[:-3] not in only:
                    continue
                out.append(os.path.join(root, name))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", default=sysconfig.get_paths()["purelib"])
    ap.add_argument("--only", default="", help="top-level packages, comma-separated")
    ap.add_argument("--max-bytes", type=int, default=2_000_000)
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    counts: dict[str, Counter[str]] = {"may_be_heavy": Counter(), "must_be_heavy": Counter()}
    wrong: dict[str, list[str]] = {"may_be_heavy": [], "must_be_heavy": []}
    spent: dict[str, float] = {"may_be_heavy": 0.0, "must_be_heavy": 0.0}
    verdicts: Counter[str] = Counter()
    for path in _files(args.site, only):
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if len(data) > args.max_bytes:
            continue
        try:
            ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            verdicts["does not parse"] += 1
            continue
        rel = os.path.relpath(path, args.site)
        pkg = os.path.basename(path) == "__init__.py"
        mod = rel[: -len("/__init__.py") if pkg else -3].replace(os.sep, ".")
        refused = LR.light_facts(data, path, mod, pkg) is None
        verdicts["refused" if refused else "light"] += 1
        for name, test in (("may_be_heavy", LR.may_be_heavy), ("must_be_heavy", LR.must_be_heavy)):
            t0 = time.perf_counter()
            yes = test(data)
            spent[name] += time.perf_counter() - t0
            counts[name][("yes" if yes else "no") + (", refused" if refused else ", light")] += 1
            if name == "must_be_heavy" and yes and not refused:
                wrong[name].append(rel)
            if name == "may_be_heavy" and refused and not yes:
                wrong[name].append(rel)
    print(f"site {args.site}: {sum(verdicts.values())} files, {dict(verdicts)}")
    for name, c in counts.items():
        cells = ", ".join(
            f"{k} {c[k]}" for k in ("yes, refused", "yes, light", "no, refused", "no, light")
        )
        print(f"{name}: {cells}; {spent[name]:.2f} s of CPU")
    print("must_be_heavy says yes to light files:", wrong["must_be_heavy"])
    print("may_be_heavy says no to refused files:", wrong["may_be_heavy"])


if __name__ == "__main__":
    main()
