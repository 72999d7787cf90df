"""The fix corpus as an oracle for the static stage (issue 23): predicted break and recompile
lines against the lines the dynamic stage observed in each model before any fix.

    python benchmarks/fix_corpus_predict.py dev                 # totals and one row per model
    python benchmarks/fix_corpus_predict.py heldout             # totals only (never tuned on)
    python benchmarks/fix_corpus_predict.py dev2                # 175 more dev models (rows)
    python benchmarks/fix_corpus_predict.py held2               # their held-out half: totals only
    python benchmarks/fix_corpus_predict.py dev --only NAME ... # a few dev models
    python benchmarks/fix_corpus_predict.py dev --json FILE     # the dev rows as JSON
    python benchmarks/fix_corpus_predict.py heldout --relabel   # labels from today's dynamic stage
    python benchmarks/fix_corpus_predict.py dev3b --write-labels # label a new set's folder (torch)

Each model (``benchmarks/fix_corpus*/NAME.py``, its input spec in the ``# spec: {...}`` first
line) is copied alone into a temporary folder, as ``fix_corpus.py`` observed it, and checked the
way a user runs the static stage, in a fresh process: ``compilelint check NAME.py --input-spec
spec.json --static-only --format json`` (the spec written from the header) and, apart, ``compilelint
check NAME.py --format json`` (no spec). ``--no-cache`` (the code under test, not a cached
record) and ``--fail-on never``; following into installed packages as by default.

**Labels** are the ``observed_lines`` of each model's row in a ``fix_corpus.py --json`` result
(one dynamic run of the model as written): ``{"kind": "break"|"recompile", "line": N}``, plus
``"file"`` for a recompile torch attributed to a library's file. Sets:

- ``dev``: the 105 fresh development models (``fix_corpus_dev_fresh.txt``), labels from
  ``fix_corpus_dev_fresh_base_torch2.13.json``;
- ``heldout``: the five held-out batches (``fix_corpus_heldout{,2,3,4,5}/``), labels from
  ``fix_corpus_heldout*_after_round10_torch2.13.json``. Only totals are printed for them.
- ``dev2`` and ``held2``: the other 331 models of ``fix_corpus/`` (written by earlier rounds for
  ``fix``, never used to tune the prediction), split in two by the parity of ``sha1(name)``
  before any prediction work on them (``fix_corpus_predict_{dev2,held2}.json``: each model's
  ``observed_lines`` copied from the newest committed ``fix_corpus.py --json`` run holding it).
  ``held2`` is held out: totals only.
- ``dev3b`` and ``dev3r`` (round 19): new development models written for the prediction (breaks,
  recompiles), in ``fix_corpus_<set>/``; labels in ``fix_corpus_predict_<set>.json``, written by
  ``--write-labels`` (``fix_corpus.observe`` on every model of the folder: the dynamic stage on the
  installed torch is the oracle). ``dev3d`` (round 20, pred24b): the same for new break forms
  (scipy, sparse, nested tensors, host round-trips, dynamic-shape ops, training-time calls).
  ``dev3s`` (round 20, pred24r): recompile forms; ``dev3c`` (pred24c) and ``dev3f`` (round 21,
  pred25c): models torch compiles clean, in real repositories' styles (precision); ``dev3e``
  (round 21, pred25b): break forms of further domains (samplers, NMS, point clouds, quantisation).

``--relabel`` scores against labels made now, by today's dynamic stage on the installed torch
(``fix_corpus.observe``, what ``fix_corpus.py`` records as ``observed_lines``), instead of the
committed ones, and prints how many models' labels differ from the committed labels (totals):
the dynamic stage's attribution has changed since some sets were labelled (a recompile whose
guard has no user stack took the ``def`` line before ``61b75d9``). The committed labels stay
the set's figure of record; the relabelled one is a second figure.
**Predicted lines**: the findings in the model's file whose rule predicts a break (a catalogue
rule with graph-break types outside the ``recompiles`` category) or a recompile (``recompiles``
category, and ``CL501``/``CL507``, module state torch guards on), plus, with a spec, the
prediction's ``recompile_sites`` (reported as ``CL303`` findings where no other rule names the
line). Lines are unique per model; a finding's line is its first line, or for module state a
change of which traced code reads earlier (``CL501``) the line of that read (``guard_line``,
where torch installs the guard and reports the recompile). A finding ``behind`` a
loop break (torch runs the frame eagerly from that break, so it reports this one only once the
first is fixed) predicts no line of this run and is left out.

**Matching** (``match``): a break line is found when a predicted break line equals it. A
recompile line is what torch's recompile reason names: the user frame of the failing guard's
stack (where the guarded value was read and specialised), or, without a stack, the recompiled
function's first line (the ``def`` line: a tensor input's size or dtype guard). It is found when a
predicted recompile line equals it (same file and line); ``def`` lines among them are scored apart
too (*input recompiles*: torch guards on what the call passes). Library recompile lines (the
``file`` rows) are matched by file name and line against predicted lines in that file; they are
counted apart, not in the model-file figures. Looser, as a second figure: a predicted recompile
line inside the same function (the innermost ``def`` enclosing the observed line; for a ``def``
line, that function). A clean model has no observed line; it is *flagged* when a break or
recompile line is predicted in its file.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEV_LIST = HERE / "fix_corpus_dev_fresh.txt"
DEV_LABELS = HERE / "fix_corpus_dev_fresh_base_torch2.13.json"
HELDOUT = ("", "2", "3", "4", "5")
SPLIT = ("dev2", "held2")  # the other fix-corpus models, split before tuning on them
HELD = frozenset({"heldout", "held2"})
NEW = ("dev3b", "dev3r", "dev3d", "dev3s", "dev3c", "dev3e", "dev3f", "dev3g", "dev3h")  # development sets with a folder of their own, labelled by --write-labels
RECOMPILE_EXTRA = frozenset({"CL501", "CL507"})  # module state torch guards on


# ---------------------------------------------------------------------------- the sets
@dataclass(frozen=True)
class Model:
    name: str
    path: Path
    observed: tuple[Mapping[str, Any], ...]


def _rows(result: Path) -> dict[str, list[Mapping[str, Any]]]:
    """The ``observed_lines`` of each model of a ``fix_corpus.py --json`` result (first row of a
    model recorded in several spec forms)."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in json.loads(result.read_text(encoding="utf-8"))["models"]:
        if "observed_lines" in r:
            out.setdefault(r["model"], list(r["observed_lines"]))
    return out


def load_set(name: str) -> list[Model]:
    if name in SPLIT or name in NEW:
        data = json.loads((HERE / f"fix_corpus_predict_{name}.json").read_text(encoding="utf-8"))
        folder = HERE / ("fix_corpus" if name in SPLIT else f"fix_corpus_{name}")
        return [
            Model(n, folder / f"{n}.py", tuple(r["observed_lines"]))
            for n, r in sorted(data["models"].items())
        ]
    if name == "dev":
        names = DEV_LIST.read_text(encoding="utf-8").split()
        rows = _rows(DEV_LABELS)
        folder = HERE / "fix_corpus"
        return [Model(n, folder / f"{n}.py", tuple(rows[n])) for n in names if n in rows]
    models: list[Model] = []
    for k in HELDOUT:
        folder = HERE / f"fix_corpus_heldout{k}"
        rows = _rows(HERE / f"fix_corpus_heldout{k}_after_round10_torch2.13.json")
        for n in sorted(rows):
            if (folder / f"{n}.py").is_file():
                models.append(Model(n, folder / f"{n}.py", tuple(rows[n])))
    return models


# ---------------------------------------------------------------------------- running the stage
def _command(file: str, spec: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "compilelint", "check", file]
    if spec:
        cmd += ["--input-spec", spec, "--static-only"]
    return [*cmd, "--format", "json", "--no-cache", "--fail-on", "never"]


def check(model: Model, with_spec: bool, timeout: float = 300.0) -> dict[str, Any]:
    """The JSON report of the static stage on the model copied alone (a fresh process)."""
    with tempfile.TemporaryDirectory(prefix="fix-corpus-predict-") as tmp:
        work = Path(os.path.realpath(tmp))
        shutil.copy(model.path, work / model.path.name)
        spec = None
        if with_spec:
            first = model.path.read_text(encoding="utf-8").splitlines()[0]
            (work / "spec.json").write_text(first.removeprefix("# spec:").strip())
            spec = "spec.json"
        p = subprocess.run(
            _command(model.path.name, spec),
            cwd=work,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(os.environ),
        )
        try:
            return dict(json.loads(p.stdout))
        except json.JSONDecodeError:
            return {"error": (p.stderr or p.stdout)[-500:]}


# ---------------------------------------------------------------------------- matching
def rule_kinds() -> tuple[frozenset[str], frozenset[str]]:
    """(break rules, recompile rules) of the catalogue."""
    from compilelint.catalog import load_catalog
    from compilelint.static.analysis.breakpoints import is_break_rule

    rules = load_catalog().rules
    brk = frozenset(c for c, r in rules.items() if is_break_rule(r))
    rec = frozenset(
        c
        for c, r in rules.items()
        if c not in brk and (r.category == "recompiles" or c in RECOMPILE_EXTRA)
    )
    return brk, rec


def functions_of(source: str) -> list[tuple[int, int, int]]:
    """(def line, first line, last line) of every function, innermost last."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append((node.lineno, first, node.end_lineno or node.lineno))
    return sorted(out, key=lambda t: (t[1], -t[2]))


def enclosing(funcs: Sequence[tuple[int, int, int]], line: int) -> int | None:
    """The ``def`` line of the innermost function holding ``line`` (a decorator or ``def`` line
    belongs to its function)."""
    best = None
    for d, first, last in funcs:
        if first <= line <= last:
            best = d
    return best


@dataclass
class Score:
    """One model's figures (unique lines)."""

    breaks: list[int] = field(default_factory=list)  # observed break lines
    found_breaks: list[int] = field(default_factory=list)  # predicted break lines
    recompiles: list[int] = field(default_factory=list)  # observed, in the model's file
    defs: list[int] = field(default_factory=list)  # those that are a `def` line
    found_recompiles: list[int] = field(default_factory=list)  # predicted, in the model's file
    lib_recompiles: list[str] = field(default_factory=list)  # observed `file:line` in libraries
    lib_found: list[str] = field(default_factory=list)  # those predicted
    rec_hit: list[int] = field(default_factory=list)
    rec_hit_fn: list[int] = field(default_factory=list)  # found in the same function
    error: str = ""

    @property
    def break_hit(self) -> list[int]:
        return sorted(set(self.breaks) & set(self.found_breaks))

    @property
    def clean(self) -> bool:
        return not self.breaks and not self.recompiles and not self.lib_recompiles

    @property
    def flagged(self) -> bool:
        return bool(self.found_breaks or self.found_recompiles)


def match(
    observed: Iterable[Mapping[str, Any]],
    report: Mapping[str, Any],
    file: str,
    source: str,
    kinds: tuple[frozenset[str], frozenset[str]],
) -> Score:
    """Score one model's report against its observed lines (see the module docstring)."""
    brk_rules, rec_rules = kinds
    s = Score()
    if "error" in report and "findings" not in report:
        s.error = str(report["error"])
    obs = list(observed)
    s.breaks = sorted({int(o["line"]) for o in obs if o["kind"] == "break" and o.get("line")})
    s.recompiles = sorted(
        {
            int(o["line"])
            for o in obs
            if o["kind"] == "recompile" and o.get("line") and not o.get("file")
        }
    )
    s.lib_recompiles = sorted(
        {
            f"{o['file']}:{o['line']}"
            for o in obs
            if o["kind"] == "recompile" and o.get("line") and o.get("file")
        }
    )
    funcs = functions_of(source)
    def_lines = {d for d, _f, _l in funcs}
    s.defs = [ln for ln in s.recompiles if ln in def_lines]

    def mine(path: object) -> bool:
        return os.path.basename(str(path or "")) == file

    brk: set[int] = set()
    rec: set[int] = set()
    lib: set[str] = set()
    sites = [
        # module state changed (CL501): torch reports its recompile where it is first read
        (f.get("path"), f.get("guard_line") or f.get("line"), f.get("rule"))
        for f in report.get("findings", []) or ()
        if f.get("behind") is None  # torch reports it once the loop break before it is fixed
    ]
    pred = report.get("prediction") or {}
    sites += [(r.get("path"), r.get("line"), "CL303") for r in pred.get("recompile_sites", [])]
    for path, line, rule in sites:
        if not isinstance(line, int):
            continue
        if rule in brk_rules and mine(path):
            brk.add(line)
        elif rule in rec_rules:
            if mine(path):
                rec.add(line)
            else:
                lib.add(f"{os.path.basename(str(path or ''))}:{line}")
    s.found_breaks = sorted(brk)
    s.found_recompiles = sorted(rec)
    s.lib_found = sorted(set(s.lib_recompiles) & lib)
    s.rec_hit = sorted(set(s.recompiles) & rec)
    fn_of_found = {enclosing(funcs, ln) for ln in rec} - {None}
    s.rec_hit_fn = [ln for ln in s.recompiles if enclosing(funcs, ln) in fn_of_found]
    return s


# ---------------------------------------------------------------------------- totals
def _r(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.2f}" if b else f"{a}/{b}"


def totals(scores: Sequence[Score]) -> dict[str, int]:
    t = {
        "models": len(scores),
        "errors": sum(bool(s.error) for s in scores),
        "brk": sum(len(s.breaks) for s in scores),
        "brk_hit": sum(len(s.break_hit) for s in scores),
        "found": sum(len(s.found_breaks) for s in scores),
        "rec": sum(len(s.recompiles) for s in scores),
        "rec_hit": sum(len(s.rec_hit) for s in scores),
        "rec_hit_fn": sum(len(s.rec_hit_fn) for s in scores),
        "defs": sum(len(s.defs) for s in scores),
        "defs_hit": sum(len(set(s.defs) & set(s.rec_hit)) for s in scores),
        "rec_found": sum(len(s.found_recompiles) for s in scores),
        "rec_found_ok": sum(len(set(s.found_recompiles) & set(s.recompiles)) for s in scores),
        "lib": sum(len(s.lib_recompiles) for s in scores),
        "lib_hit": sum(len(s.lib_found) for s in scores),
        "clean": sum(s.clean for s in scores),
        "clean_flagged": sum(s.clean and s.flagged for s in scores),
        "rec_models": sum(bool(s.recompiles) for s in scores),
    }
    return t


def totals_line(label: str, t: Mapping[str, int]) -> str:
    return (
        f"{label}: {t['models']} models ({t['errors']} errors); break recall "
        f"{_r(t['brk_hit'], t['brk'])}; break precision {_r(t['brk_hit'], t['found'])}; "
        f"recompile recall {_r(t['rec_hit'], t['rec'])} (same function "
        f"{_r(t['rec_hit_fn'], t['rec'])}; def lines {_r(t['defs_hit'], t['defs'])}); "
        f"recompile precision {_r(t['rec_found_ok'], t['rec_found'])}; library recompile "
        f"lines {_r(t['lib_hit'], t['lib'])}; clean flagged {t['clean_flagged']}/{t['clean']}"
    )


def row(name: str, s: Score, n: Score) -> str:
    def diff(a: Sequence[Any], b: Sequence[Any]) -> str:
        return ",".join(str(x) for x in sorted(set(a) - set(b))) or "-"

    if s.error:
        return f"  {name}: ERROR {s.error.strip().splitlines()[-1][:120]}"
    return (
        f"  {name}: breaks {len(s.break_hit)}/{len(s.breaks)} missed {diff(s.breaks, s.found_breaks)}"
        f" extra {diff(s.found_breaks, s.breaks)}; recompiles {len(s.rec_hit)}/{len(s.recompiles)}"
        f" missed {diff(s.recompiles, s.rec_hit)} extra {diff(s.found_recompiles, s.recompiles)}"
        + (f"; lib {len(s.lib_found)}/{len(s.lib_recompiles)}" if s.lib_recompiles else "")
        + f" | no spec: breaks {len(n.break_hit)}/{len(n.breaks)}"
        f" extra {diff(n.found_breaks, n.breaks)}; recompiles {len(n.rec_hit)}/{len(n.recompiles)}"
    )


def _label_keys(observed: Iterable[Mapping[str, Any]]) -> set[tuple[Any, ...]]:
    return {(o["kind"], o.get("file"), o.get("line")) for o in observed}


def relabelled(m: Model, timeout: float = 300.0) -> Model:
    """``m`` with the labels today's dynamic stage gives (``fix_corpus.observe``)."""
    sys.path.insert(0, str(HERE))
    from fix_corpus import observe

    return Model(m.name, m.path, tuple(observe(m.path, timeout)))


def write_labels(name: str, only: Sequence[str] | None, jobs: int) -> Path:
    """Label the models of a new set's folder with today's dynamic stage (``observe``); models
    already labelled keep their labels unless named in ``only``."""
    sys.path.insert(0, str(HERE))
    from fix_corpus import observe

    folder = HERE / f"fix_corpus_{name}"
    out = HERE / f"fix_corpus_predict_{name}.json"
    data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {"models": {}}
    todo = [
        p
        for p in sorted(folder.glob("*.py"))
        if (only and p.stem in set(only)) or (not only and p.stem not in data["models"])
    ]

    def one(p: Path) -> tuple[str, list[dict[str, Any]]]:
        return p.stem, observe(p, 300.0)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for n, obs in pool.map(one, todo):
            data["models"][n] = {"observed_lines": obs}
            print(f"{n}: {len(obs)} observed lines")
    data["models"] = dict(sorted(data["models"].items()))
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return out


def run_set(
    name: str, only: Sequence[str] | None, jobs: int, per_model: bool, relabel: bool = False
) -> tuple[dict[str, int], dict[str, int], list[dict[str, Any]]]:
    models = load_set(name)
    if only:
        models = [m for m in models if m.name in set(only)]
    kinds = rule_kinds()
    changed: list[tuple[int, int]] = []  # per relabelled model: (labels added, labels gone)

    def one(m: Model) -> tuple[Model, Score, Score]:
        if relabel:
            new = relabelled(m)
            was, now = _label_keys(m.observed), _label_keys(new.observed)
            changed.append((len(now - was), len(was - now)))
            m = new
        source = m.path.read_text(encoding="utf-8")
        got = [
            match(m.observed, check(m, with_spec), m.path.name, source, kinds)
            for with_spec in (True, False)
        ]
        return m, got[0], got[1]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = sorted(pool.map(one, models), key=lambda t: t[0].name)
    rows: list[dict[str, Any]] = []
    if per_model:
        for m, s, n in results:
            print(row(m.name, s, n))
            rows.append({"model": m.name, "spec": asdict(s), "no_spec": asdict(n)})
    ts = totals([s for _m, s, _n in results])
    tn = totals([n for _m, _s, n in results])
    if relabel:
        name += " relabelled"
        diff = [c for c in changed if c != (0, 0)]
        print(
            f"{name}: {len(models)} models labelled again, {len(diff)} with labels unlike the "
            f"committed ones ({sum(a for a, _ in diff)} lines added, {sum(b for _, b in diff)} gone)"
        )
    print(totals_line(f"{name} (--input-spec --static-only)", ts))
    print(totals_line(f"{name} (no spec)", tn))
    return ts, tn, rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", choices=("dev", "dev2", "heldout", "held2", *NEW))
    ap.add_argument("--only", nargs="*", help="dev model names")
    ap.add_argument("--jobs", type=int, default=2, help="models checked at once (default 2)")
    ap.add_argument("--json", help="write the dev rows and totals here")
    ap.add_argument(
        "--relabel",
        action="store_true",
        help="labels from today's dynamic stage instead of the committed ones (a second figure)",
    )
    ap.add_argument(
        "--write-labels",
        action="store_true",
        help=f"label the models of a new set ({', '.join(NEW)}) not yet labelled (or --only ones)",
    )
    a = ap.parse_args(argv)
    if a.write_labels:
        for s in a.sets:
            if s not in NEW:
                raise SystemExit(f"--write-labels is for the new sets ({', '.join(NEW)}), not {s}")
            print(f"wrote {write_labels(s, a.only, a.jobs)}")
        return 0
    out: dict[str, Any] = {}
    for s in a.sets:
        held = s in HELD
        if held and a.only:
            raise SystemExit("--only is for dev models: held-out rows are never printed")
        ts, tn, rows = run_set(s, a.only, a.jobs, per_model=not held, relabel=a.relabel)
        out[s] = {"spec": ts, "no_spec": tn, **({} if held else {"models": rows})}
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
