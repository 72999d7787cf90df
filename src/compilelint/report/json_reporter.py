"""``--format json``: the stable machine contract."""

from __future__ import annotations

import dataclasses
import json

from compilelint.catalog import Catalog
from compilelint.model import Finding, Report

_DYNAMIC_FIELDS = ("gb_type", "gb_id", "hints", "count", "frames", "rank", "impact")


def finding_dict(f: Finding) -> dict[str, object]:
    d: dict[str, object] = {
        "rule": f.rule,
        "name": f.name,
        "path": f.path,
        "line": f.line,
        "col": f.col,
        "end_line": f.end_line,
        "end_col": f.end_col,
        "severity": f.severity,
        "message": f.message,
        "fix": f.fix,
        "stage": f.stage,
        "observed": f.observed if f.observed is not None else f.stage in ("dynamic", "both"),
        "function": f.function,
    }
    if f.reached is not None:  # the dynamic run recorded line coverage
        d["reached"] = f.reached
    for k in _DYNAMIC_FIELDS:
        v = getattr(f, k)
        d[k] = (
            [dataclasses.asdict(x) for x in v]
            if k == "frames"
            else (list(v) if isinstance(v, tuple) else v)
        )
    if f.package is not None:
        d["package"] = f.package  # third-party code reached from this call (``frames``)
    if f.latent:
        d["latent"] = f.latent  # not certain to break: why (``--report-untraced`` shows more)
    if f.behind is not None:
        d["behind"] = f.behind  # torch reports it only once the loop break at this line is fixed
    if f.guard_line is not None:
        d["guard_line"] = f.guard_line  # where torch reports the recompile
    return d


def report_dict(report: Report) -> dict[str, object]:
    s = report.summary
    out: dict[str, object] = {
        "version": report.version,
        "torch": report.torch,
        "findings": [finding_dict(f) for f in report.findings],
        "errors": [dataclasses.asdict(e) for e in report.errors],
        "summary": {
            "files": s.files,
            "lines": s.lines,
            "findings": s.findings,
            "by_rule": s.by_rule,
            "seconds": s.seconds,
        },
    }
    for k, v in report.extra.items():
        out[k] = v
    return out


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    return json.dumps(report_dict(report), indent=2, sort_keys=False) + "\n"
