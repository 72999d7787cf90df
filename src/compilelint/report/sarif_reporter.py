"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning (``github/codeql-action/upload-sarif``).

One run holds the static and the dynamic findings. ``tool.driver.rules`` is the whole catalogue
(so ``ruleIndex`` is stable across runs); each result carries a ``partialFingerprints`` entry
from :func:`compilelint.fingerprint.content_hash` (rule + normalized line + enclosing function,
never the line number) with an occurrence number, and ``fixes`` when the fix stage filled
``Finding.edits``. URIs are relative to ``%SRCROOT%`` (the git work tree's top, else the current
folder); columns count Unicode code points, as compilelint's do. Torch version and dynamic-stage
counts live in ``run.properties``, never in messages, so fingerprints and messages stay stable.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compilelint.catalog import Catalog
from compilelint.docs import rule_page
from compilelint.fingerprint import content_hash
from compilelint.model import Edit, FileError, Finding, Report, Rule
from compilelint.report.common import (
    cwd_of,
    dynamic_block,
    repo_relative,
    stage_label,
)

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "compilelint/v1"
SRCROOT = "%SRCROOT%"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_PRECISION = {"dynamic": "very-high", "engine": "very-high"}
GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


def _section(rule: Rule, title: str) -> str:
    return next((text for t, text in rule.sections if t == title), "")


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    """A ``reportingDescriptor`` from the catalogue entry."""
    markdown = [f"**{rule.code} {rule.name}**: {rule.summary}"]
    for title, text in rule.sections:
        markdown += [f"## {title}", text]
    if rule.gb_ids:
        markdown.append(f"torch graph-break ids: {', '.join(rule.gb_ids)}")
    tags = ["torch.compile", rule.category]
    if rule.gb_ids or rule.code.startswith(("CL1", "CL2")) or rule.code == "CL002":
        tags.append("graph-break")
    if rule.verify == "recompiles" or rule.code.startswith("CL3") or rule.code == "CL003":
        tags.append("recompile")
    desc: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _section(rule, "What it does") or rule.summary},
        "help": {"text": rule_page(rule), "markdown": "\n\n".join(markdown) + "\n"},
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.default},
        "properties": {
            "tags": tags,
            "precision": _PRECISION.get(rule.detector, "high" if rule.default else "medium"),
            "fix": rule.fix,
            "gb_ids": list(rule.gb_ids),
        },
    }
    if rule.gb_ids:
        # torch's own page for the graph break the rule predicts (the GB registry site).
        desc["helpUri"] = GB_SITE.format(rule.gb_ids[0].lower())
    return desc


def _artifact(path: str, options: Mapping[str, object]) -> dict[str, Any]:
    rel = repo_relative(path, options)
    if rel is not None:
        return {"uri": rel, "uriBaseId": SRCROOT}
    return {"uri": Path(os.path.join(cwd_of(options), path)).resolve().as_uri()}


def _region(
    line: int, col: int, end_line: int, end_col: int, snippet: str | None = None
) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(1, line), "startColumn": max(1, col)}
    if end_line >= line:
        region["endLine"] = end_line
    if end_line > line or (end_line == line and end_col > col):
        region["endColumn"] = max(1, end_col)
    if snippet:
        region["snippet"] = {"text": snippet}
    return region


def _fixes(f: Finding, options: Mapping[str, object]) -> list[dict[str, Any]]:
    by_path: dict[str, list[Edit]] = {}
    for e in f.edits:
        by_path.setdefault(e.path, []).append(e)
    changes = [
        {
            "artifactLocation": _artifact(path, options),
            "replacements": [
                {
                    "deletedRegion": {
                        "startLine": e.line,
                        "startColumn": e.col,
                        "endLine": e.end_line,
                        "endColumn": e.end_col,
                    },
                    "insertedContent": {"text": e.content},
                }
                for e in sorted(edits, key=lambda e: (e.line, e.col))
            ],
        }
        for path, edits in by_path.items()
    ]
    return [{"description": {"text": f.fix or "autofix"}, "artifactChanges": changes}]


def result(
    f: Finding, index: int, occurrence: int, options: Mapping[str, object]
) -> dict[str, Any]:
    text = f.message + (f" (x{f.count})" if f.count > 1 else "")
    if f.fix:
        text += f"\nFix: {f.fix}"
    props: dict[str, Any] = {
        "stage": stage_label(f),
        "observed": f.observed if f.observed is not None else f.stage in ("dynamic", "both"),
        "count": f.count,
    }
    for key in ("gb_type", "gb_id", "function"):
        if getattr(f, key):
            props[key] = getattr(f, key)
    if f.hints:
        props["hints"] = list(dict.fromkeys(f.hints))
    if f.reached is not None:
        props["reached"] = f.reached
    if f.latent:
        props["latent"] = f.latent
    if f.behind is not None:
        props["behind"] = f.behind
    if f.guard_line is not None:
        props["guard_line"] = f.guard_line
    if f.rank:
        props["rank"] = f.rank
        props["impact"] = f.impact
    res: dict[str, Any] = {
        "ruleId": f.rule,
        "level": _LEVEL.get(f.severity, "warning"),
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(f.path, options),
                    "region": _region(
                        f.line, f.col, f.end_line, f.end_col, f.line_text.rstrip("\r\n") or None
                    ),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: f"{content_hash(f)}:{occurrence}"},
        "properties": props,
    }
    if index >= 0:
        res["ruleIndex"] = index
    if f.frames:
        # The user stack the dynamic stage saw, innermost last (e.g. the call site of a block).
        res["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": {
                    "artifactLocation": _artifact(fr.path, options),
                    "region": {"startLine": max(1, fr.line)},
                },
                "message": {"text": f"in {fr.function}" if fr.function else "frame"},
            }
            for i, fr in enumerate(f.frames)
        ]
    if f.edits:
        res["fixes"] = _fixes(f, options)
    return res


def _notification(e: FileError, options: Mapping[str, object]) -> dict[str, Any]:
    note: dict[str, Any] = {
        "level": "error" if e.kind in ("usage", "internal", "dynamic", "error") else "warning",
        "message": {"text": e.message},
        "descriptor": {"id": f"compilelint/{e.kind}"},
    }
    if e.path:
        note["locations"] = [{"physicalLocation": {"artifactLocation": _artifact(e.path, options)}}]
    return note


def sarif_dict(report: Report, catalog: Catalog, options: Mapping[str, object]) -> dict[str, Any]:
    codes = catalog.codes()
    index = {c: i for i, c in enumerate(codes)}
    seen: Counter[tuple[str, str]] = Counter()
    results = []
    for f in report.findings:
        key = (f.path, content_hash(f))
        seen[key] += 1
        results.append(result(f, index.get(f.rule, -1), seen[key], options))
    dyn = dynamic_block(report)
    props: dict[str, Any] = {
        "torch": report.torch,
        "files": report.summary.files,
        "lines": report.summary.lines,
    }
    if dyn is not None and isinstance(dyn.get("summary"), dict):
        props["dynamic"] = dyn["summary"]
        if dyn.get("source") == "trace":
            props["dynamic"] = {**dyn["summary"], "source": "trace", "ranks": dyn.get("ranks")}
            props["divergence"] = dyn.get("divergence") or []
    failed = any(e.kind in ("usage", "internal") for e in report.errors) or bool(
        dyn and dyn.get("error")
    )
    srcroot = os.path.realpath(str(options.get("srcroot") or cwd_of(options)))
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "compilelint",
                "version": report.version,
                "semanticVersion": report.version,
                "rules": [rule_descriptor(catalog.rules[c]) for c in codes],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": Path(srcroot).as_uri().rstrip("/") + "/"}},
        "invocations": [
            {
                "executionSuccessful": not failed,
                "toolExecutionNotifications": [_notification(e, options) for e in report.errors],
            }
        ],
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": props,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    return json.dumps(sarif_dict(report, catalog, options), indent=2) + "\n"
