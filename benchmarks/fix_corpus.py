"""How many observed graph breaks ``compilelint fix --unsafe-fixes --verify`` removes.

Every ``benchmarks/fix_corpus/*.py`` is a small model written in the style of a real code base
(timm, torchvision, transformers, diffusers, Lightning examples, RL and GNN code), with the
habits that break torch.compile; its first line is ``# spec: {...}`` (the input spec). Each is
copied alone into a temporary project and fixed there with verification (torch runs the
original and the fixed copy, compares outputs, counts breaks and recompiles). Printed: per
model the observed breaks and recompiles before and after, per rule the fixes that landed,
the totals, and what was left and why. ``--json FILE`` writes the figures. ``--merge FILE``
adds the rows recorded in FILE (an earlier ``--json``) for the models not measured in this run,
so that a run of a few models (``--only``) prints the table of the whole corpus; each row
names the torch it was measured with.

    python benchmarks/fix_corpus.py [--only NAME ...] [--json FILE] [--merge FILE] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "fix_corpus"


def spec_of(path: Path) -> dict[str, Any]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# spec:"):
        raise SystemExit(f"{path}: the first line must be `# spec: {{...}}`")
    return json.loads(first.removeprefix("# spec:"))


def fix_one(path: Path, timeout: float) -> dict[str, Any]:
    from compilelint.config import Config
    from compilelint.fix import fix_paths

    with tempfile.TemporaryDirectory(prefix="fix-corpus-") as tmp:
        work = Path(tmp)
        shutil.copy(path, work / path.name)
        (work / "spec.json").write_text(json.dumps(spec_of(path)), encoding="utf-8")
        old = os.getcwd()
        os.chdir(work)
        t0 = time.perf_counter()
        try:
            run = fix_paths(
                [path.name],
                Config(cache=False),
                unsafe=True,
                spec="spec.json",
                verify=True,
                root=str(work),
                timeout=timeout,
            )
        finally:
            os.chdir(old)
        ver = run.verification
        assert ver is not None
        before = ver.before or {}
        after = ver.after or before
        return {
            "model": path.stem,
            "torch": _torch_version(),
            "seconds": round(time.perf_counter() - t0, 1),
            "error": ver.error,
            "runs": ver.runs,
            "passes": run.iterations,
            "breaks_before": int(before.get("breaks", 0)),
            "breaks_after": int(after.get("breaks", 0)),
            "recompiles_before": int(before.get("recompiles", 0)),
            "recompiles_after": int(after.get("recompiles", 0)),
            "applied": [
                {"rule": r.rule, "line": r.line, "observed": r.message.startswith("torch observed")}
                for r in run.records
                if r.status == "applied"
            ],
            "not_applied": [
                {"rule": r.rule, "line": r.line, "status": r.status, "reason": r.reason}
                for r in run.records
                if r.status != "applied"
            ],
            "observed": ver.observed,
            "outcomes": dict(Counter(o.outcome for o in ver.outcomes)),
            "without_outcome": ver.observed - len(ver.outcomes),
            "configs": [
                {
                    "name": c.name,
                    "accepted": c.accepted,
                    "breaks": [c.breaks_before, c.breaks_after],
                }
                for c in ver.configs
            ],
            "checks": [
                {
                    "rule": c.rule,
                    "breaks": [c.breaks_before, c.breaks_after],
                    "recompiles": [c.recompiles_before, c.recompiles_after],
                    "outputs": c.outputs,
                    "accepted": c.accepted,
                }
                for c in ver.checks
            ],
        }


def _torch_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return "?"


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        f"{'model':24} {'breaks':>9} {'recompiles':>11}  fixes applied",
        "-" * 78,
    ]
    for r in rows:
        fixes = ", ".join(a["rule"] + ("*" if a["observed"] else "") for a in r["applied"])
        if r["error"]:
            fixes = f"error: {r['error'][:50]}"
        out.append(
            f"{r['model']:24} {r['breaks_before']:>4} -> {r['breaks_after']:<2}"
            f" {r['recompiles_before']:>4} -> {r['recompiles_after']:<3}  {fixes}"
        )
    bb = sum(r["breaks_before"] for r in rows)
    ba = sum(r["breaks_after"] for r in rows)
    rb = sum(r["recompiles_before"] for r in rows)
    ra = sum(r["recompiles_after"] for r in rows)
    added = sum(max(0, r["breaks_after"] - r["breaks_before"]) for r in rows)
    out.append("-" * 78)
    pct = 100 * (bb - ba) / bb if bb else 0.0
    out.append(
        f"{len(rows)} models: {bb} -> {ba} observed breaks ({pct:.0f}% removed, "
        f"{added} added), {rb} -> {ra} recompiles"
    )
    per_rule: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    for r in rows:
        for c in r["checks"]:
            if c["accepted"]:
                per_rule[c["rule"]] += 1
                removed[c["rule"]] += c["breaks"][0] - c["breaks"][1]
    out.append(
        "fixes applied per rule (breaks removed at their lines): "
        + ", ".join(f"{k} {v} ({removed[k]})" for k, v in sorted(per_rule.items()))
    )
    torches = Counter(str(r.get("torch", "?")) for r in rows)
    out.append(
        "measured with torch " + ", ".join(f"{k} ({v} models)" for k, v in sorted(torches.items()))
    )
    have = [r for r in rows if "without_outcome" in r]
    if have:
        oc: Counter[str] = Counter()
        for r in have:
            oc.update(r["outcomes"])
        out.append(
            f"outcomes of the {sum(r['observed'] for r in have)} observed breaks and recompiles "
            f"({len(have)} models): {oc['fixed']} fixed, {oc['proposed']} proposed, "
            f"{oc['no remedy']} no remedy; observed breaks without an outcome = "
            f"{sum(r['without_outcome'] for r in have)}"
        )
        cfg = [c for r in have for c in r.get("configs", []) if c["accepted"]]
        if cfg:
            out.append(
                "config remedies accepted: "
                + ", ".join(f"{k} {v}" for k, v in Counter(c["name"] for c in cfg).items())
            )
    observed = sum(a["observed"] for r in rows for a in r["applied"])
    out.append(f"applied fixes for breaks no static rule predicted (*): {observed}")
    left: Counter[str] = Counter()
    for r in rows:
        for n in r["not_applied"]:
            left[f"{n['rule']} {n['status']}: {n['reason'][:70]}"] += 1
    if left:
        out.append("not applied:")
        out += [f"  {v} x {k}" for k, v in left.most_common()]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="model names (file stems)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--jobs", type=int, default=1, help="models fixed at once")
    ap.add_argument(
        "--merge", help="add the rows recorded in this --json file for the models not run"
    )
    args = ap.parse_args()
    files = sorted(CORPUS.glob("*.py"))
    if args.only:
        files = [f for f in files if f.stem in set(args.only)]
    rows: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    if args.merge:
        names = {f.stem for f in files}
        corpus = {f.stem for f in CORPUS.glob("*.py")}
        recorded = json.loads(Path(args.merge).read_text(encoding="utf-8"))["models"]
        kept = [r for r in recorded if r["model"] not in names and r["model"] in corpus]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(fix_one, f, args.timeout): f for f in files}
        for fut in as_completed(futures):
            print(f"fixed {futures[fut].stem}", file=sys.stderr, flush=True)
            rows.append(fut.result())
            rows.sort(key=lambda r: r["model"])
            if args.json:  # written as it goes: a long run interrupted keeps what it measured
                both = sorted(rows + kept, key=lambda r: r["model"])
                Path(args.json).write_text(json.dumps({"models": both}, indent=1) + "\n")
    print(table(sorted(rows + kept, key=lambda r: r["model"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
