"""Git helpers: which lines changed against a base ref (``--diff-base``, GitHub annotations).

Merge-base semantics, like a pull request: lines are "changed" when they differ between the
merge base of REF and HEAD and the working tree (commits on the branch plus staged and
unstaged edits). Renames are followed (``-M``), so a moved file only counts its edited lines;
untracked files count as changed everywhere. Problems come back as :class:`VcsError` with a
one-line message; nothing here writes to the repository.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from compilelint.model import Report

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class VcsError(Exception):
    """A one-line, user-facing reason why the changed lines could not be computed."""


@dataclass(frozen=True)
class Changes:
    """Changed lines per absolute file path; a file mapped to ``None`` changed entirely."""

    ref: str
    merge_base: str
    files: Mapping[str, frozenset[int] | None]

    def touches(self, path: str, line: int, end_line: int | None = None) -> bool:
        """Whether any line of ``line..end_line`` in ``path`` (absolute or cwd-relative) changed."""
        key = os.path.realpath(path)
        if key not in self.files:
            return False
        lines = self.files[key]
        if lines is None:
            return True
        last = max(line, end_line or line)
        return any(n in lines for n in range(line, last + 1))


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[str]:
    git = shutil.which("git")
    if git is None:
        raise VcsError("git was not found on PATH (needed to compute changed lines)")
    try:
        return subprocess.run(
            [git, "-c", "core.quotepath=false", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:
        raise VcsError(f"cannot run git: {exc.strerror or exc}") from exc


def repo_root(path: str) -> str:
    """The top folder of the git work tree holding ``path`` (a file or a folder)."""
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    while folder and not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    proc = _git(["rev-parse", "--show-toplevel"], folder or ".")
    if proc.returncode != 0:
        raise VcsError(f"{path} is not inside a git repository")
    return os.path.realpath(proc.stdout.strip())


def _unquote(name: str) -> str:
    """Undo git's C-style quoting of a path (``"a\\tb"``, octal bytes for non-ASCII)."""
    if not (len(name) >= 2 and name[0] == '"' and name[-1] == '"'):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt, octal = body[i + 1], body[i + 1 : i + 4]
            if len(octal) == 3 and all(ch in "01234567" for ch in octal):
                out.append(int(octal, 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode("utf-8")
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "replace")


def parse_unified_diff(text: str) -> dict[str, frozenset[int]]:
    """``git diff --unified=0`` output -> the new-side line numbers added or changed, per path
    (relative to the repository root, as the ``+++ b/...`` header names it). Deleted files and
    pure deletions contribute nothing; a renamed file is listed under its new name."""
    out: dict[str, set[int]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = None if name == "/dev/null" else name[2:] if name[:2] == "b/" else name
            if current is not None:
                out.setdefault(current, set())
            continue
        m = _HUNK.match(line)
        if m and current is not None:
            start = int(m.group(1))
            count = int(m.group(2)) if m.group(2) is not None else 1
            out[current].update(range(start, start + count))
    return {k: frozenset(v) for k, v in out.items()}


def changed_lines(ref: str, paths: Iterable[str]) -> Changes:
    """Lines changed against ``ref`` (merge-base semantics) in the repositories of ``paths``."""
    roots: list[str] = []
    for p in list(paths) or ["."]:
        root = repo_root(p)
        if root not in roots:
            roots.append(root)
    files: dict[str, frozenset[int] | None] = {}
    base = ""
    for root in roots:
        proc = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root)
        if proc.returncode != 0:
            raise VcsError(f"unknown git ref {ref!r} in {root}")
        proc = _git(["merge-base", ref, "HEAD"], root)
        if proc.returncode != 0:
            raise VcsError(
                f"no merge base between {ref!r} and HEAD in {root}"
                " (a shallow clone? fetch more history, e.g. fetch-depth: 0)"
            )
        base = proc.stdout.strip()
        proc = _git(
            [
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-relative",
                "--unified=0",
                "-M",
                base,
                "--",
            ],
            root,
        )
        if proc.returncode != 0:
            msg = (proc.stderr.strip().splitlines() or ["git diff failed"])[-1]
            raise VcsError(f"git diff against {ref!r} failed: {msg}")
        for rel, lines in parse_unified_diff(proc.stdout).items():
            files[os.path.realpath(os.path.join(root, rel))] = lines
        proc = _git(["ls-files", "--others", "--exclude-standard", "-z"], root)
        if proc.returncode == 0:
            for rel in proc.stdout.split("\0"):
                if rel:
                    files[os.path.realpath(os.path.join(root, rel))] = None
    return Changes(ref=ref, merge_base=base, files=files)


def restrict_report(report: Report, changes: Changes) -> Report:
    """Keep only findings on changed lines (errors and dynamic data stay); recount the summary."""
    kept = tuple(f for f in report.findings if changes.touches(f.path, f.line, f.end_line))
    by_rule = dict(sorted(Counter(f.rule for f in kept).items()))
    summary = dataclasses.replace(report.summary, findings=len(kept), by_rule=by_rule)
    extra = dict(report.extra)
    extra["diff_base"] = {
        "ref": changes.ref,
        "merge_base": changes.merge_base,
        "changed_files": len(changes.files),
        "dropped_findings": len(report.findings) - len(kept),
    }
    return dataclasses.replace(report, findings=kept, summary=summary, extra=extra)
