"""Static following into real libraries, measured against the dynamic stage (issue 18).

    python benchmarks/corpus_libs.py oracle      # dynamic stage + eager line coverage (slow)
    python benchmarks/corpus_libs.py score       # static, from the user files and library mode

Run it with the environment's own interpreter, where the libraries are installed:
``pip install -e . torch==2.13.0 torchdiffeq kornia torchmetrics vector-quantize-pytorch gpytorch
zuko nflows x-transformers rotary-embedding-torch torchsde einops``.

Each ``benchmarks/corpus_libs/*.py`` is a small user model file that calls one library from its
``forward`` and defines ``make() -> (model, inputs)``.

``oracle`` runs, for each model file, ``compilelint check FILE --input-spec`` (backend eager, CPU,
``--no-follow`` so the static side adds nothing) and keeps the graph breaks whose innermost frame
is inside an installed package: the break lines. It also runs the model eagerly under
``sys.settrace`` to record which library lines run (a line that ran under compile and is not a
break line ran without breaking). Paths are stored relative to site-packages, in
``benchmarks/corpus_libs/oracle.json``.

``score`` then measures:
- *recall from user files*: ``compilelint check FILE`` (static, following on); a break line is
  found when a finding's innermost frame is that line;
- *library mode*: ``compilelint check <installed package folder>`` on each library's own files;
  recall of the break lines in that package, and precision on the lines that ran (findings on
  lines that ran: how many are break lines);
- cost: cold (no cache) and warm (library cache filled) wall time of the static check per model
  file, each a fresh process.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# Two sets of user model files, each with its labels: the first (tuned on) and a held-out set,
# written and labelled before any tuning and never edited since (``--set heldout``).
SETS = {
    "tuned": (BENCH / "corpus_libs", BENCH / "corpus_libs" / "oracle.json"),
    "heldout": (BENCH / "corpus_libs_heldout", BENCH / "corpus_libs_heldout" / "labels.json"),
    # development material added in issue 23's eighth round (diffusers, einx, linear_operator,
    # torch-einops-utils and new parts of torchmetrics, kornia, gpytorch, x-transformers):
    # labelled by the same oracle before any change it motivated; tuned on like "tuned".
    "dev2": (BENCH / "corpus_libs_dev2", BENCH / "corpus_libs_dev2" / "labels.json"),
    # issue 23, round 23 (pred27b): user files over less-used libraries (entmax, sparsemax,
    # torch-dct, pytorch-msssim, k-means, linformer, nystrom, PKM, MoE variants, CoLT5, MEGABYTE,
    # memory-efficient attention, axial embeddings, siren, hyper-connections, metric learning,
    # transformers' logits processors and losses, torchode, torchcde, torchsde, normflows);
    # labelled by the oracle before any change it motivated; tuned on like "tuned".
    "dev3": (BENCH / "corpus_libs_dev3", BENCH / "corpus_libs_dev3" / "labels.json"),
}
HERE, ORACLE = SETS["tuned"]
SITE = Path(sysconfig.get_paths()["purelib"])
SKIP = ("torch/", "functorch/")  # breaks inside torch itself are not library lines
PACKAGES = {  # model file prefix -> installed package folder judged in library mode
    "ode": "torchdiffeq",
    "kornia": "kornia",
    "metrics": "torchmetrics",
    "vq": "vector_quantize_pytorch",
    "gp": "gpytorch",
    "flow_zuko": "zuko",
    "flow_nflows": "nflows",
    "xtransformer": "x_transformers",
    "rotary": "rotary_embedding_torch",
    "sde": "torchsde",
    "einops": "einops",
    "diffusers": "diffusers",
    "einx": "einx",
    "linop": "linear_operator",
    "eutils": "torch_einops_utils",
    "entmax": "entmax",
    "sparsemax": "sparsemax",
    "dct": "torch_dct",
    "msssim": "pytorch_msssim",
    "kmeans": "kmeans_pytorch",
    "tkmeans": "torch_kmeans",
    "linformer": "linformer",
    "nystrom": "nystrom_attention",
    "pkm": "product_key_memory",
    "softmoe": "soft_moe_pytorch",
    "stmoe": "st_moe_pytorch",
    "moe": "mixture_of_experts",
    "colt5": "colt5_attention",
    "megabyte": "MEGABYTE_pytorch",
    "mea": "memory_efficient_attention_pytorch",
    "axial": "axial_positional_embedding",
    "siren": "siren_pytorch",
    "hyper": "hyper_connections",
    "pml": "pytorch_metric_learning",
    "hf": "transformers",
    "torchode": "torchode",
    "cde": "torchcde",
    "normflows": "normflows",
}
# Library-mode runs use the package folders that the model files reach (whole kornia and
# torchmetrics are large; their reached sub-packages are judged).
LIB_DIRS = {
    "torchdiffeq": ["torchdiffeq"],
    "kornia": ["kornia/augmentation", "kornia/filters", "kornia/geometry/transform"],
    "torchmetrics": ["torchmetrics/functional/classification", "torchmetrics/regression"],
    "vector_quantize_pytorch": ["vector_quantize_pytorch"],
    "gpytorch": ["gpytorch/kernels", "gpytorch/distributions", "gpytorch/means"],
    "zuko": ["zuko"],
    "nflows": ["nflows"],
    "x_transformers": ["x_transformers"],
    "rotary_embedding_torch": ["rotary_embedding_torch"],
    "torchsde": ["torchsde"],
    "einops": ["einops"],
    "diffusers": [
        "diffusers/schedulers",
        "diffusers/models/unets",
        "diffusers/models/attention_processor.py",
    ],
}

COVER = r"""
import importlib.util, json, sys
path, site, out = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("user_model", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
import torch
torch.manual_seed(0)
model, inputs = mod.make()
lines = set()
def tracer(frame, event, arg):
    f = frame.f_code.co_filename
    if not f.startswith(site) or f[len(site) + 1:].startswith(("torch/", "functorch/")):
        return None
    if event == "line" or event == "call":
        lines.add((f[len(site) + 1:], frame.f_lineno))
    return tracer
sys.settrace(tracer)
try:
    model(*inputs)
finally:
    sys.settrace(None)
json.dump(sorted(lines), open(out, "w"))
"""


def package_of(model: str) -> str:
    for prefix, pkg in PACKAGES.items():
        if model.startswith(prefix):
            return pkg
    raise SystemExit(f"no package for {model}")


def rel(path: str) -> str | None:
    p = os.path.realpath(path)
    s = os.path.realpath(SITE)
    return p[len(s) + 1 :] if p.startswith(s + os.sep) else None


def models(here: Path = HERE) -> list[Path]:
    return sorted(p for p in here.glob("*.py"))


def file_spec(m: Path) -> dict[str, object]:
    """The model file's own spec additions: a module-level ``SPEC = {...}`` literal (variants,
    calls, kwargs) read without importing the file."""
    for node in ast.parse(m.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "SPEC"
        ):
            got = ast.literal_eval(node.value)
            if isinstance(got, dict):
                return got
    return {}


def where(path: str, model: Path, td: str) -> str | None:
    """A frame's file: relative to site-packages, the model file's name, or None (elsewhere)."""
    r = rel(path if os.path.isabs(path) else os.path.join(td, path))
    if r is not None:
        return r
    full = path if os.path.isabs(path) else os.path.join(td, path)
    if os.path.realpath(full) == os.path.realpath(model) or path == model.name:
        return model.name
    return None


def labels_of(rep: dict[str, Any], m: Path, td: str) -> dict[str, Any]:
    """Break lines (innermost frame in a library, or in the user file), recompiles (the line
    that installed the failing guard, its guard and torch's reason) and the graph count."""
    breaks: set[tuple[str, int]] = set()
    user_breaks: set[tuple[str, int]] = set()
    for f in rep["findings"]:
        if f["stage"] == "static" or f["rule"] in ("CL003",) or not f["frames"]:
            continue
        last = f["frames"][-1]
        r = where(last["path"], m, td)
        if r is None:
            continue
        if r == m.name:
            user_breaks.add((r, last["line"]))
        elif any(rel(fr["path"]) for fr in f["frames"]):
            breaks.add((r, last["line"]))
    dyn = rep.get("dynamic") or {}
    recompiles = []
    for rc in dyn.get("recompiles", []) or []:
        path = where(str(rc.get("path") or ""), m, td) if rc.get("path") else None
        recompiles.append(
            {
                "path": path,
                "line": rc.get("line"),
                "function": rc.get("function"),
                "guard": rc.get("guard"),
                "explanation": rc.get("explanation"),
                "input": rc.get("input"),
                "dim": rc.get("dim"),
                "count": rc.get("count"),
                "hit_limit": rc.get("hit_limit"),
                "in_library": bool(path and path != m.name),
            }
        )
    return {
        "breaks": sorted([list(b) for b in breaks]),
        "user_breaks": sorted([list(b) for b in user_breaks]),
        "recompiles": recompiles,
        "graph_count": dyn.get("graph_count"),
        "graph_break_count": dyn.get("graph_break_count"),
        "recompile_count": dyn.get("recompile_count"),
        "hit_recompile_limit": dyn.get("hit_recompile_limit"),
    }


def oracle(names: list[str], here: Path = HERE, out_file: Path = ORACLE) -> None:
    data = json.loads(out_file.read_text()) if out_file.is_file() else {}
    for m in models(here):
        if names and m.stem not in names:
            continue
        with tempfile.TemporaryDirectory() as td:
            spec = Path(td) / "spec.json"
            extra = file_spec(m)
            spec.write_text(
                json.dumps(
                    {
                        "model": f"{m}:make",
                        "device": "cpu",
                        "seed": 0,
                        "compile": {"backend": "eager"},
                        **extra,
                    }
                )
            )
            t = time.perf_counter()
            try:
                out = subprocess.run(
                    [
                        *(sys.executable, "-m", "compilelint", "check", str(m)),
                        *("--input-spec", str(spec), "--format", "json", "--no-cache"),
                        *("--no-follow", "--select", "ALL"),
                    ],
                    capture_output=True,
                    text=True,
                    cwd=td,
                    timeout=900,
                )
                rep = json.loads(out.stdout)
            except (ValueError, subprocess.TimeoutExpired) as e:
                msg = (
                    out.stderr.strip()[-300:]
                    if not isinstance(e, subprocess.TimeoutExpired)
                    else ""
                )
                print(f"{m.stem}: dynamic stage failed: {msg or e}")
                continue
            labels = labels_of(rep, m, td)
            failures = [e["message"][:200] for e in rep.get("errors", [])]
            cov = Path(td) / "cov.json"
            subprocess.run(
                [sys.executable, "-c", COVER, str(m), str(SITE), str(cov)],
                capture_output=True,
                text=True,
                cwd=td,
                check=False,
            )
            ran = json.loads(cov.read_text()) if cov.is_file() else []
            ran = [r for r in ran if r[0].startswith(package_of(m.stem) + "/")]  # its own lines
            data[m.stem] = {
                "package": package_of(m.stem),
                **labels,
                "variants": len(extra.get("variants", []) or []),  # type: ignore[arg-type]
                "ran": ran,
                "errors": failures,
            }
            print(
                f"{m.stem}: {len(labels['breaks'])} library break lines, "
                f"{len(labels['user_breaks'])} user break lines, "
                f"{len(labels['recompiles'])} recompiles, {labels['graph_count']} graphs, "
                f"{len(ran)} lines ran, {time.perf_counter() - t:.0f}s",
                flush=True,
            )
        out_file.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")


def static_json(args: list[str], cwd: Path) -> tuple[dict, float]:  # type: ignore[type-arg]
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "compilelint", "check", *args, "--format", "json"],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    dt = time.perf_counter() - t
    try:
        return json.loads(out.stdout), dt
    except ValueError:
        raise SystemExit(f"compilelint failed on {args}: {out.stderr[-500:]}") from None


def ran_dirs(ran: set[tuple[str, int]]) -> list[str]:
    """Held-out set: library mode judges the folders whose files the models ran (a file at a
    package's top level: that file), outermost first, none inside another."""
    out: list[str] = []
    for d in sorted({os.path.dirname(f) if "/" in os.path.dirname(f) else f for f, _ in ran}):
        if not any(d == o or d.startswith(o + "/") for o in out):
            out.append(d)
    return out


def score(here: Path = HERE, labels: Path = ORACLE, quick: bool = False) -> dict[str, object]:
    data = json.loads(labels.read_text())
    tuned = here == SETS["tuned"][0]
    rows = []
    tot_b = tot_hit = tot_found = 0
    cold: list[float] = []
    warm: list[float] = []
    follow_s: list[float] = []
    for m in models(here):
        if m.stem not in data:
            continue
        o = data[m.stem]
        breaks = {tuple(b) for b in o["breaks"] if not b[0].startswith(SKIP)}
        with tempfile.TemporaryDirectory() as td:
            shutil.copy(m, Path(td) / m.name)
            rep, dt_cold = static_json([m.name, "--no-cache"], Path(td))
            dt_warm = 0.0
            if not quick:
                static_json([m.name], Path(td))
                (Path(td) / m.name).write_text(m.read_text() + "\n")  # a changed model file
                _, dt_warm = static_json([m.name], Path(td))
        fol = rep.get("follow") or {}
        cold.append(dt_cold)
        warm.append(dt_warm)
        follow_s.append(float(fol.get("seconds", 0.0)))
        found = set()
        for f in rep["findings"]:
            if f.get("package") and f["frames"]:
                r = rel(f["frames"][-1]["path"])
                if r:
                    found.add((r, f["frames"][-1]["line"]))
        hit = len(breaks & found)
        tot_b += len(breaks)
        tot_hit += hit
        tot_found += len(found)
        rows.append(
            {
                "model": m.stem,
                "package": o["package"],
                "breaks": len(breaks),
                "found": hit,
                "static_findings": len(found),
                "cold_s": round(dt_cold, 2),
                "warm_s": round(dt_warm, 2),
                "follow_cold_s": round(follow_s[-1], 2),
                # per-line detail (library path relative to site-packages, line)
                "missed": sorted(breaks - found),
                "false": sorted(found - breaks),
            }
        )
    # library mode, per package
    lib_rows = []
    lb = lh = ran_f = ran_hit = all_f = all_hit = 0
    by_pkg: dict[str, tuple[set, set]] = {}  # type: ignore[type-arg]
    for o in data.values():
        b, r = by_pkg.setdefault(o["package"], (set(), set()))
        b.update(tuple(x) for x in o["breaks"] if not x[0].startswith(SKIP))
        r.update(tuple(x) for x in o["ran"])
    for pkg, (breaks, ran) in sorted(by_pkg.items()):
        scope = LIB_DIRS[pkg] if tuned else ran_dirs(ran)
        dirs = [str(SITE / d) for d in scope]
        with tempfile.TemporaryDirectory() as td:
            # library mode with the package's whole public API as entries
            cfgf = Path(td) / "pyproject.toml"
            cfgf.write_text('[tool.compilelint]\nentries = ["*"]\n')
            rep, dt = static_json(
                [*dirs, "--no-cache", "--no-follow", "--config", str(cfgf)], Path(td)
            )
        found = set()
        for f in rep["findings"]:
            r = rel(f["path"]) if os.path.isabs(f["path"]) else rel(os.path.join(td, f["path"]))
            if r:
                found.add((r, f["line"]))
        in_scope = {b for b in breaks if any(b[0] == d or b[0].startswith(d + "/") for d in scope)}
        hit = len(in_scope & found)
        all_f += len(found)
        all_hit += len(found & breaks)
        on_ran = found & ran
        good = len(on_ran & breaks)
        lb += len(in_scope)
        lh += hit
        ran_f += len(on_ran)
        ran_hit += good
        lib_rows.append(
            {
                "package": pkg,
                "breaks": len(in_scope),
                "found": hit,
                "findings": len(found),
                "findings_on_ran_lines": len(on_ran),
                "of_which_break": good,
                "seconds": round(dt, 2),
                "missed": sorted(in_scope - found),
                "false_on_ran_lines": sorted(on_ran - breaks),
                "not_ran": sorted(found - ran),
            }
        )
    result = {
        "models": rows,
        "library_mode": lib_rows,
        "recall_user_files": round(tot_hit / tot_b, 3) if tot_b else None,
        "break_lines": tot_b,
        # distinct library lines with a finding from the user files that are observed breaks
        "precision_user_files": round(tot_hit / tot_found, 3) if tot_found else None,
        "recall_library_mode": round(lh / lb, 3) if lb else None,
        "precision_library_mode_ran": round(ran_hit / ran_f, 3) if ran_f else None,
        # distinct lines with a library-mode finding that are observed break lines
        "precision_library_mode_all": round(all_hit / all_f, 3) if all_f else None,
        "cold_max_s": round(max(cold), 2) if cold else None,
        "warm_max_s": round(max(warm), 2) if warm else None,
        "follow_cold_max_s": round(max(follow_s), 2) if follow_s else None,
    }
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=("oracle", "score"))
    ap.add_argument("models", nargs="*", help="oracle: only these model files (stems)")
    ap.add_argument("--json", help="score: also write the result here")
    ap.add_argument("--quick", action="store_true", help="score: no warm-cache timing runs")
    ap.add_argument("--labels", help="the labels file to write (oracle) or read (score)")
    ap.add_argument(
        "--set",
        choices=sorted(SETS),
        default="tuned",
        help="which user model files: the tuned set (corpus_libs/), the held-out set or the second "
        "development set (corpus_libs_dev2/)",
    )
    a = ap.parse_args()
    here, labels = SETS[a.set]
    if a.labels:
        labels = Path(a.labels)
    if a.step == "oracle":
        oracle(a.models, here, labels)
        return
    res = score(here, labels, a.quick)
    for r in res["models"]:  # type: ignore[attr-defined]
        print(
            f"{r['model']:<20} {r['package']:<24} breaks {r['breaks']:>3}  found {r['found']:>3}"
            f"  lines {r['static_findings']:>3}  cold {r['cold_s']:.2f}s  warm {r['warm_s']:.2f}s"
        )
    for r in res["library_mode"]:  # type: ignore[attr-defined]
        print(
            f"library mode {r['package']:<24} breaks {r['breaks']:>3} found {r['found']:>3}  "
            f"findings on lines that ran {r['findings_on_ran_lines']:>3} "
            f"(breaks {r['of_which_break']})"
        )
    for k in (
        "break_lines",
        "recall_user_files",
        "precision_user_files",
        "recall_library_mode",
        "precision_library_mode_ran",
        "precision_library_mode_all",
        "cold_max_s",
        "warm_max_s",
        "follow_cold_max_s",
    ):
        print(f"{k}: {res[k]}")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
