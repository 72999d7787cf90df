"""Library mode on code no corpus model runs: torchmetrics' functional classification API.

    python benchmarks/libmode_probe.py [--json out.json]

Most library-mode findings of ``corpus_libs.py score`` sit in code no corpus model runs (e.g. the
classification functions of torchmetrics, which its two model files do not call), so "precision on
all findings" counts every one of them as false. This probe labels that code the same way the
corpus oracle does: it calls 19 public entry points of ``torchmetrics.functional.classification``
under their default arguments (only the required ones given: predictions, targets and the class
or label count), records which torchmetrics lines an eager run executes (``sys.settrace``) and
which lines torch 2.13 reports graph breaks at (``torch._dynamo.explain``, backend eager; the
innermost torchmetrics frame of each break), then runs library mode on the same folders as the
scorer (``compilelint check <dirs> --no-follow`` with ``entries = ["*"]``) and reports recall of
those break lines and precision on the lines that ran.

``explain`` lists the breaks of every graph it compiles, resume functions included; a break that
only a later call would hit is not seen, so precision here is a lower bound.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus_libs import LIB_DIRS, SITE, rel, static_json  # benchmarks/ is the script's folder


def entry_calls() -> dict[str, Callable[[], Any]]:
    import torch
    import torchmetrics.functional.classification as F

    torch.manual_seed(0)
    n, c = 16, 3
    bp, bt = torch.rand(n), torch.randint(0, 2, (n,))
    mp, mt = torch.randn(n, c).softmax(-1), torch.randint(0, c, (n,))
    lp, lt = torch.rand(n, c), torch.randint(0, 2, (n, c))
    return {
        "binary_accuracy": lambda: F.binary_accuracy(bp, bt),
        "multiclass_accuracy": lambda: F.multiclass_accuracy(mp, mt, num_classes=c),
        "multilabel_accuracy": lambda: F.multilabel_accuracy(lp, lt, num_labels=c),
        "binary_auroc": lambda: F.binary_auroc(bp, bt),
        "multiclass_auroc": lambda: F.multiclass_auroc(mp, mt, num_classes=c),
        "multilabel_auroc": lambda: F.multilabel_auroc(lp, lt, num_labels=c),
        "binary_average_precision": lambda: F.binary_average_precision(bp, bt),
        "multiclass_average_precision": lambda: F.multiclass_average_precision(
            mp, mt, num_classes=c
        ),
        "binary_matthews_corrcoef": lambda: F.binary_matthews_corrcoef(bp, bt),
        "binary_confusion_matrix": lambda: F.binary_confusion_matrix(bp, bt),
        "multilabel_confusion_matrix": lambda: F.multilabel_confusion_matrix(lp, lt, num_labels=c),
        "binary_cohen_kappa": lambda: F.binary_cohen_kappa(bp, bt),
        "binary_calibration_error": lambda: F.binary_calibration_error(bp, bt),
        "binary_hinge_loss": lambda: F.binary_hinge_loss(bp, bt),
        "binary_roc": lambda: F.binary_roc(bp, bt),
        "binary_precision_recall_curve": lambda: F.binary_precision_recall_curve(bp, bt),
        "multilabel_ranking_loss": lambda: F.multilabel_ranking_loss(lp, lt, num_labels=c),
        "binary_precision_at_fixed_recall": lambda: F.binary_precision_at_fixed_recall(
            bp, bt, min_recall=0.5
        ),
        "binary_logauc": lambda: F.binary_logauc(bp, bt),
    }


def observe() -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """(lines that ran eagerly, break lines) in torchmetrics over all the entry calls."""
    import torch._dynamo as dynamo

    site = str(SITE)
    ran: set[tuple[str, int]] = set()
    breaks: set[tuple[str, int]] = set()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        f = frame.f_code.co_filename
        if not f.startswith(site):
            return None
        if "torchmetrics/" in f and event in ("line", "call"):
            ran.add((f[len(site) + 1 :], frame.f_lineno))
        return tracer

    for fn in entry_calls().values():
        sys.settrace(tracer)
        try:
            fn()
        finally:
            sys.settrace(None)
        dynamo.reset()
        for b in dynamo.explain(fn)().break_reasons:
            own = [fr for fr in b.user_stack if "torchmetrics/" in fr.filename]
            if own:
                r = rel(own[-1].filename)
                if r:
                    breaks.add((r, own[-1].lineno))
    return ran, breaks


def library_mode(dirs: list[str]) -> set[tuple[str, int]]:
    with tempfile.TemporaryDirectory() as td:
        cfg = Path(td) / "pyproject.toml"
        cfg.write_text('[tool.compilelint]\nentries = ["*"]\n')
        paths = [str(SITE / d) for d in dirs]
        rep, _ = static_json([*paths, "--no-cache", "--no-follow", "--config", str(cfg)], Path(td))
        found = set()
        for f in rep["findings"]:
            r = rel(f["path"] if os.path.isabs(f["path"]) else os.path.join(td, f["path"]))
            if r:
                found.add((r, f["line"]))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="also write the result here")
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    dirs = LIB_DIRS["torchmetrics"]
    ran, breaks = observe()
    breaks = {b for b in breaks if any(b[0].startswith(d + "/") for d in dirs)}
    found = library_mode(dirs)
    on_ran = found & ran
    res = {
        "entries_called": len(entry_calls()),
        "break_lines": len(breaks),
        "found": len(breaks & found),
        "findings": len(found),
        "findings_on_ran_lines": len(on_ran),
        "of_which_break": len(on_ran & breaks),
        "recall": round(len(breaks & found) / len(breaks), 3) if breaks else None,
        "precision_on_ran_lines": round(len(on_ran & breaks) / len(on_ran), 3) if on_ran else None,
        "missed": sorted(breaks - found),
        "false_on_ran_lines": sorted(on_ran - breaks),
    }
    for k, v in res.items():
        if not isinstance(v, list):
            print(f"{k}: {v}")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
