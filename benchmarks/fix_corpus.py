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

``--corpus DIR`` runs another folder of such models (``benchmarks/fix_corpus_heldout``: the
held-out half, never tuned on). ``--spec-form`` chooses how the spec names the model file:
``relative`` (``name.py:Class``, the default), ``absolute`` (the file's absolute path in the
temporary project) or ``both`` (each model fixed twice, one row per form). Before fixing, one
dynamic run records the breaks and recompiles torch observes (by line); each row says which of
them the fix output names (``file:line``) and whether the output is silent (no finding, no
check: only ``Fixed 0 findings in 0 files.`` and the before line).

    python benchmarks/fix_corpus.py [--corpus DIR] [--spec-form relative|absolute|both]
        [--only NAME ...] [--json FILE] [--merge FILE] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


FORMS = ("relative", "absolute")


def spec_in(work: Path, path: Path, form: str) -> dict[str, Any]:
    """The model's spec for its copy in ``work``, its ``model`` in the given form."""
    spec = spec_of(path)
    file, _, name = str(spec["model"]).rpartition(":")
    if form == "absolute":
        spec["model"] = f"{work / Path(file).name}:{name}"
    return spec


def observe(path: Path, timeout: float) -> list[dict[str, Any]]:
    """The breaks and recompiles torch observes in the model as written, by line of its file."""
    from compilelint.dynamic.api import run_dynamic

    with tempfile.TemporaryDirectory(prefix="fix-corpus-obs-") as tmp:
        work = Path(os.path.realpath(tmp))
        shutil.copy(path, work / path.name)
        (work / "spec.json").write_text(json.dumps(spec_in(work, path, "relative")))
        res = run_dynamic(str(work / "spec.json"), cwd=str(work), timeout=timeout)
        mine = str(work / path.name)
        seen: list[dict[str, Any]] = []
        for b in res.breaks:
            inside = b.path is not None and os.path.realpath(b.path) == mine
            seen.append({"kind": "break", "gb_id": b.gb_id, "line": b.line if inside else None})
        for r in res.recompiles:
            inside = r.path is not None and os.path.realpath(r.path) == mine
            row = {"kind": "recompile", "gb_id": None, "line": r.line if inside else None}
            if not inside and r.path is not None and r.line is not None:
                # a library's frame recompiled: the fix output names it by the library's file
                row.update(line=r.line, file=os.path.basename(r.path))
            seen.append(row)
        return seen


def named(output: str, file: str, line: int | None) -> bool:
    """Whether the fix output names ``file:line`` (as ``file:line`` or ``file:line:col``)."""
    if line is None:
        return False
    return re.search(rf"(?<![\w.-]){re.escape(file)}:{line}(?!\d)", output) is not None


def fix_model(path: Path, timeout: float, forms: tuple[str, ...]) -> list[dict[str, Any]]:
    seen = observe(path, timeout)
    rows = []
    for form in forms:
        row = fix_one(path, timeout, form)
        row["observed_lines"] = seen
        row["named"] = [named(row["output"], o.get("file", path.name), o["line"]) for o in seen]
        rows.append(row)
    return rows


def fix_one(path: Path, timeout: float, form: str = "relative") -> dict[str, Any]:
    from compilelint.config import Config
    from compilelint.fix import fix_paths
    from compilelint.fix.cli import run_text

    with tempfile.TemporaryDirectory(prefix="fix-corpus-") as tmp:
        work = Path(os.path.realpath(tmp))
        shutil.copy(path, work / path.name)
        (work / "spec.json").write_text(json.dumps(spec_in(work, path, form)), encoding="utf-8")
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
        output = "\n".join(run_text(run))  # what `compilelint fix` prints
        return {
            "model": path.stem,
            "spec_form": form,
            "torch": _torch_version(),
            "output": output,
            "silent": not run.records and not ver.checks and not run.outcomes,
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
    forms = sorted({r.get("spec_form", "relative") for r in rows})
    if len(forms) > 1:
        parts = [table([r for r in rows if r.get("spec_form", "relative") == f]) for f in forms]
        return "\n\n".join(f"spec form: {f}\n{t}" for f, t in zip(forms, parts, strict=True))
    out = [
        f"{'model':24} {'breaks':>9} {'recompiles':>11} {'named':>6}  fixes applied",
        "-" * 86,
    ]
    for r in rows:
        fixes = ", ".join(a["rule"] + ("*" if a["observed"] else "") for a in r["applied"])
        if r["error"]:
            fixes = f"error: {r['error'][:50]}"
        nm = f"{sum(r['named'])}/{len(r['named'])}" if "named" in r else "-"
        if r.get("silent"):
            nm += "!"
        out.append(
            f"{r['model']:24} {r['breaks_before']:>4} -> {r['breaks_after']:<2}"
            f" {r['recompiles_before']:>4} -> {r['recompiles_after']:<3} {nm:>6}  {fixes}"
        )
    bb = sum(r["breaks_before"] for r in rows)
    ba = sum(r["breaks_after"] for r in rows)
    rb = sum(r["recompiles_before"] for r in rows)
    ra = sum(r["recompiles_after"] for r in rows)
    added = sum(max(0, r["breaks_after"] - r["breaks_before"]) for r in rows)
    out.append("-" * 86)
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
    if any("named" in r for r in rows):
        n_obs = sum(len(r.get("named", [])) for r in rows)
        n_named = sum(sum(r.get("named", [])) for r in rows)
        silent = [r["model"] for r in rows if r.get("silent")]
        out.append(
            f"observed breaks and recompiles named (file:line) in the fix output: {n_named} of "
            f"{n_obs}; silent outputs (only `Fixed 0 findings`, marked !): {len(silent)} models"
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
    ap.add_argument("--corpus", default=str(CORPUS), help="folder of models (default: %(default)s)")
    ap.add_argument(
        "--spec-form",
        choices=["relative", "absolute", "both"],
        default="relative",
        help="how the spec names the model file",
    )
    ap.add_argument("--only", nargs="*", help="model names (file stems)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--jobs", type=int, default=1, help="models fixed at once")
    ap.add_argument(
        "--merge", help="add the rows recorded in this --json file for the models not run"
    )
    args = ap.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        raise SystemExit(f"--corpus {corpus}: not a folder")
    forms = FORMS if args.spec_form == "both" else (args.spec_form,)
    files = sorted(corpus.glob("*.py"))
    if args.only:
        files = [f for f in files if f.stem in set(args.only)]
    rows: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    if args.merge:
        names = {f.stem for f in files}
        stems = {f.stem for f in corpus.glob("*.py")}
        recorded = json.loads(Path(args.merge).read_text(encoding="utf-8"))["models"]
        kept = [
            r
            for r in recorded
            if r["model"] not in names
            and r["model"] in stems
            and r.get("spec_form", "relative") in forms
        ]

    def order(r: dict[str, Any]) -> tuple[str, str]:
        return (r["model"], r.get("spec_form", "relative"))

    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(fix_model, f, args.timeout, forms): f for f in files}
        for fut in as_completed(futures):
            print(f"fixed {futures[fut].stem}", file=sys.stderr, flush=True)
            rows.extend(fut.result())
            if args.json:  # written as it goes: a long run interrupted keeps what it measured
                both = sorted(rows + kept, key=order)
                Path(args.json).write_text(json.dumps({"models": both}, indent=1) + "\n")
    print(table(sorted(rows + kept, key=order)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
