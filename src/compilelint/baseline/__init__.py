"""Baselines: adopt compilelint in a codebase that already has findings.

``compilelint baseline create`` writes the current findings to a file; ``check --baseline FILE``
then reports (and fails on) only findings that are not in it. A finding's identity is its rule,
its path (relative to the baseline file's folder) and :func:`compilelint.fingerprint.content_hash`
(rule + normalized line content + enclosing function), never its line number, so edits elsewhere
in the file and moved lines keep matching. Matching is count-aware: two identical findings in one
function against one baseline entry leave one new finding. Baseline entries that nothing matches
any more are reported as fixed.

The file is JSON, versioned, sorted and deterministic (no line numbers, no timestamps), so it
diffs well in review. Pure functions except :func:`load_baseline` / :func:`write_baseline`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compilelint.fingerprint import content_hash, normalize_line
from compilelint.model import FileError, Finding, Report

BASELINE_VERSION = 1
DEFAULT_BASELINE = ".compilelint-baseline.json"


class BaselineError(Exception):
    """A missing, unreadable, corrupt or wrong-version baseline; ``str()`` is one line."""


@dataclass(frozen=True)
class Entry:
    """One baseline identity and how many findings carry it."""

    rule: str
    path: str  # relative to the baseline file's folder, '/' separators
    hash: str
    count: int = 1
    function: str = ""  # for people reading the file; not used for matching
    code: str = ""  # the normalized source line; not used for matching

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.rule, self.path, self.hash)


@dataclass(frozen=True)
class Baseline:
    entries: tuple[Entry, ...]
    base_dir: str  # absolute folder the entry paths are relative to
    source: str = ""  # the file it was read from


@dataclass(frozen=True)
class Match:
    new: tuple[Finding, ...]  # findings not in the baseline, in report order
    matched: int  # findings the baseline covers
    fixed: tuple[Entry, ...]  # baseline entries (count = how many) no finding matched


def baseline_path(finding_path: str, base_dir: str, cwd: str | None = None) -> str:
    """A report path (relative to ``cwd`` or absolute) relative to the baseline's folder."""
    cwd = cwd or os.getcwd()
    absolute = os.path.normpath(os.path.join(cwd, finding_path))
    try:
        rel = os.path.relpath(absolute, base_dir)
    except ValueError:  # another drive on Windows
        rel = absolute
    return rel.replace(os.sep, "/")


def finding_key(f: Finding, base_dir: str, cwd: str | None = None) -> tuple[str, str, str]:
    return (f.rule, baseline_path(f.path, base_dir, cwd), content_hash(f))


def build_baseline(findings: Iterable[Finding], base_dir: str, cwd: str | None = None) -> Baseline:
    counts: Counter[tuple[str, str, str]] = Counter()
    info: dict[tuple[str, str, str], tuple[str, str]] = {}
    for f in findings:
        k = finding_key(f, base_dir, cwd)
        counts[k] += 1
        info.setdefault(k, (f.function, normalize_line(f.line_text)))
    entries = [
        Entry(rule=k[0], path=k[1], hash=k[2], count=n, function=info[k][0], code=info[k][1])
        for k, n in counts.items()
    ]
    return Baseline(entries=tuple(sorted(entries, key=_sort_key)), base_dir=base_dir)


def _sort_key(e: Entry) -> tuple[str, str, str, str, str]:
    return (e.path, e.rule, e.function, e.code, e.hash)


def dumps(baseline: Baseline) -> str:
    """The file text: deterministic for the same findings (sorted, no line numbers or times)."""
    data = {
        "compilelint_baseline": BASELINE_VERSION,
        "findings": [
            {
                "rule": e.rule,
                "path": e.path,
                "hash": e.hash,
                "count": e.count,
                "function": e.function,
                "code": e.code,
            }
            for e in sorted(baseline.entries, key=_sort_key)
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_baseline(baseline: Baseline, file: str) -> None:
    """Write atomically (a half-written baseline would hide or invent findings)."""
    target = Path(file)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(dumps(baseline), encoding="utf-8")
    os.replace(tmp, target)


def loads(text: str, base_dir: str, source: str = "") -> Baseline:
    where = source or "baseline"
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        at = f" (line {line})" if line else ""
        raise BaselineError(f"{where}: not a valid baseline file: invalid JSON{at}") from None
    if not isinstance(data, dict) or "compilelint_baseline" not in data:
        raise BaselineError(
            f"{where}: not a compilelint baseline (no 'compilelint_baseline' version key); "
            "create one with `compilelint baseline create`"
        )
    version = data["compilelint_baseline"]
    if version != BASELINE_VERSION:
        raise BaselineError(
            f"{where}: baseline version {version!r} is not supported (this compilelint reads "
            f"version {BASELINE_VERSION}); re-create it with `compilelint baseline create`"
        )
    raw = data.get("findings")
    if not isinstance(raw, list):
        raise BaselineError(f"{where}: 'findings' must be a list")
    entries: list[Entry] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise BaselineError(f"{where}: findings[{i}] must be an object")
        for key in ("rule", "path", "hash"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise BaselineError(f"{where}: findings[{i}].{key} must be a non-empty string")
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"{where}: findings[{i}].count must be a positive integer")
        entries.append(
            Entry(
                rule=item["rule"],
                path=item["path"],
                hash=item["hash"],
                count=count,
                function=str(item.get("function", "")),
                code=str(item.get("code", "")),
            )
        )
    return Baseline(entries=tuple(entries), base_dir=base_dir, source=source)


def load_baseline(file: str) -> Baseline:
    p = Path(file)
    if not p.exists():
        raise BaselineError(
            f"baseline file not found: {file} (create it with `compilelint baseline create`)"
        )
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline {file}: {exc}") from None
    return loads(text, str(p.resolve().parent), source=file)


def match(findings: Sequence[Finding], baseline: Baseline, cwd: str | None = None) -> Match:
    """Split ``findings`` into new ones and matched ones; unmatched entries are fixed.

    With more findings of one identity than the baseline holds, the first ones in report order
    match and the rest are new."""
    left: Counter[tuple[str, str, str]] = Counter()
    for e in baseline.entries:
        left[e.key] += e.count
    new: list[Finding] = []
    matched = 0
    for f in findings:
        k = finding_key(f, baseline.base_dir, cwd)
        if left[k] > 0:
            left[k] -= 1
            matched += 1
        else:
            new.append(f)
    fixed: list[Entry] = []
    for e in sorted(baseline.entries, key=_sort_key):
        n = min(left[e.key], e.count)
        if n > 0:
            fixed.append(dataclasses.replace(e, count=n))
            left[e.key] -= n
    return Match(new=tuple(new), matched=matched, fixed=tuple(fixed))


def apply_baseline(report: Report, baseline: Baseline, cwd: str | None = None) -> Report:
    """The report restricted to new findings, with ``extra["baseline"]`` saying what happened."""
    m = match(report.findings, baseline, cwd)
    by_rule = dict(sorted(Counter(f.rule for f in m.new).items()))
    extra = dict(report.extra)
    extra["baseline"] = {
        "file": baseline.source,
        "matched": m.matched,
        "new": len(m.new),
        "fixed": [
            {
                "rule": e.rule,
                "path": e.path,
                "function": e.function,
                "code": e.code,
                "count": e.count,
            }
            for e in m.fixed
        ],
    }
    return dataclasses.replace(
        report,
        findings=m.new,
        summary=dataclasses.replace(report.summary, findings=len(m.new), by_rule=by_rule),
        extra=extra,
    )


def apply_baseline_file(report: Report, file: str, cwd: str | None = None) -> Report:
    """:func:`apply_baseline` from a file; a bad file becomes a usage error in the report."""
    try:
        bl = load_baseline(file)
    except BaselineError as exc:
        return dataclasses.replace(
            report, errors=(*report.errors, FileError(path=file, message=str(exc), kind="usage"))
        )
    return apply_baseline(report, bl, cwd)


def summary_line(block: Any) -> str | None:
    """``Baseline .compilelint-baseline.json: 3 known findings hidden, 1 new, 2 fixed.``"""
    if not isinstance(block, dict):
        return None
    fixed = sum(int(e.get("count", 1)) for e in block.get("fixed", []) if isinstance(e, dict))
    matched = int(block.get("matched", 0))
    name = f" {block['file']}" if block.get("file") else ""
    tail = " (re-create the baseline to drop them)" if fixed else ""
    return (
        f"Baseline{name}: {matched} known finding{'s' * (matched != 1)} hidden, "
        f"{block.get('new', 0)} new, {fixed} fixed{tail}."
    )
