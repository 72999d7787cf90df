"""Speed work must not change what is found: the findings of the 200-file transformers corpus,
compared with those recorded before the work.

    python benchmarks/compare_findings.py            # scan, compare with the record; exit 1 on a change
    python benchmarks/compare_findings.py --record   # scan and (re)write the record
    python benchmarks/compare_findings.py --record --reports FOLLOW.json NOFOLLOW.json

The corpus is the first N files (sorted paths, default 200) of the installed transformers
package's ``models/`` folder, copied to a temporary folder (as ``bench_static.py`` and
``profile_static.py`` do). It is scanned twice with ``compilelint check . --select ALL --no-cache
--format json``: following into installed packages (the default) and with ``--no-follow``. Each
finding is kept as (path, line, col, end line, end col, rule, message, function); the record is
``benchmarks/findings_transformers200.json`` and names the transformers version it was made
with (a different version is reported, not compared). ``--reports`` records from two JSON
reports made beforehand with those commands (e.g. by the code before a change).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_static import copy_corpus  # benchmarks/ is the script's folder

RECORD = Path(__file__).resolve().parent / "findings_transformers200.json"
MODES = {"follow": [], "no_follow": ["--no-follow"]}


def default_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("compare_findings: needs transformers installed")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def transformers_version() -> str:
    from importlib.metadata import version

    return version("transformers")


def normalize(report: dict) -> list[list[object]]:  # type: ignore[type-arg]
    keep = ("path", "line", "col", "end_line", "end_col", "rule", "message", "function")
    return sorted([f.get(k) for k in keep] for f in report["findings"])


# Following into installed packages stops after MAX_SECONDS (30 s): on a loaded machine the
# first run may stop before it reaches what it reaches on an idle one, and find less. The bound
# is lifted here so that the comparison does not depend on the machine's load.
UNBOUNDED = (
    "import sys, compilelint.static.follow as F; F.follow.__kwdefaults__['max_seconds'] = 1e9; "
    "from compilelint.cli import main; sys.argv[0] = 'compilelint'; main()"
)


def scan(work: Path, extra: list[str]) -> dict:  # type: ignore[type-arg]
    out = work / "report.json"
    cmd = [
        sys.executable,
        "-c",
        UNBOUNDED,
        "check",
        ".",
        "--select",
        "ALL",
        "--no-cache",
        "--format",
        "json",
        "-o",
        str(out),
        *extra,
    ]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"compare_findings: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr}")
    report = json.loads(out.read_text(encoding="utf-8"))
    bounds = (report.get("follow") or {}).get("bounds")
    if bounds:
        print(f"note: following stopped at its bounds: {bounds}")
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--first", type=int, default=200)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--reports", nargs=2, type=Path, metavar=("FOLLOW", "NOFOLLOW"))
    args = ap.parse_args()

    now: dict[str, list[list[object]]] = {}
    if args.reports:
        for mode, p in zip(MODES, args.reports):
            now[mode] = normalize(json.loads(p.read_text(encoding="utf-8")))
    else:
        work = Path(tempfile.mkdtemp(prefix="cl-compare-"))
        try:
            root = args.root or default_root()
            copy_corpus(root, sorted(root.rglob("*.py"))[: args.first], work)
            for mode, extra in MODES.items():
                now[mode] = normalize(scan(work, extra))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    version = transformers_version()
    if args.record:
        parts = [f'"transformers": {json.dumps(version)}', f'"first": {args.first}']
        for mode, rows in now.items():  # one finding per line: readable diffs
            parts.append(f'"{mode}": [\n' + ",\n".join(json.dumps(r) for r in rows) + "\n]")
        RECORD.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")
        print(f"recorded {', '.join(f'{m}: {len(v)}' for m, v in now.items())} -> {RECORD}")
        return 0
    old = json.loads(RECORD.read_text(encoding="utf-8"))
    if old.get("transformers") != version or old.get("first") != args.first:
        print(
            f"record made with transformers {old.get('transformers')} (first "
            f"{old.get('first')}); this is {version} (first {args.first}): not compared"
        )
        return 2
    changed = 0
    for mode in MODES:
        a = {json.dumps(x) for x in old[mode]}
        b = {json.dumps(x) for x in now[mode]}
        for x in sorted(a - b):
            print(f"{mode}: gone: {x}")
        for x in sorted(b - a):
            print(f"{mode}: new:  {x}")
        changed += len(a ^ b)
        print(f"{mode}: {len(now[mode])} findings, {len(a ^ b)} differences")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
