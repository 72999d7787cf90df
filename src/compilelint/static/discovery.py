"""Which files to scan: explicit files, folders walked recursively, .gitignore and excludes."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".compilelint_cache",
    "site-packages",
    "__pypackages__",
)


@dataclass(frozen=True)
class Discovered:
    files: list[Path]
    missing: list[str]


class _GitIgnore:
    """A small .gitignore matcher: comments, negation, anchoring, dir-only, ``**``."""

    def __init__(self, base: Path, lines: list[str]) -> None:
        self.base = base
        self.rules: list[tuple[re.Pattern[str], bool, bool]] = []
        for raw in lines:
            line = raw.rstrip("\n").rstrip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = "/" in line.lstrip("/")
            line = line.lstrip("/")
            rx = ""
            i = 0
            while i < len(line):
                if line.startswith("**/", i):
                    rx += "(?:.*/)?"
                    i += 3
                elif line.startswith("**", i):
                    rx += ".*"
                    i += 2
                elif line[i] == "*":
                    rx += "[^/]*"
                    i += 1
                elif line[i] == "?":
                    rx += "[^/]"
                    i += 1
                else:
                    rx += re.escape(line[i])
                    i += 1
            full = ("^" if anchored else "^(?:.*/)?") + rx + "$"
            self.rules.append((re.compile(full), neg, dir_only))

    def ignored(self, rel: str, is_dir: bool) -> bool | None:
        verdict: bool | None = None
        for rx, neg, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if rx.match(rel):
                verdict = not neg
        return verdict


def _load_gitignore(d: Path) -> _GitIgnore | None:
    gi = d / ".gitignore"
    try:
        if gi.is_file():
            return _GitIgnore(d, gi.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return None
    return None


def _excluded(rel: str, name: str, patterns: tuple[str, ...]) -> bool:
    for p in patterns:
        p2 = p.rstrip("/")
        if fnmatch.fnmatch(name, p2) or fnmatch.fnmatch(rel, p2) or fnmatch.fnmatch(rel, p2 + "/*"):
            return True
    return False


def discover(
    paths: list[str],
    *,
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool = True,
) -> Discovered:
    files: list[Path] = []
    missing: list[str] = []
    seen: set[str] = set()
    patterns = DEFAULT_EXCLUDES + tuple(exclude)
    for raw in paths:
        p = Path(raw)
        if not p.exists() and not p.is_symlink():
            missing.append(raw)
            continue
        if p.is_file() or (p.is_symlink() and not p.exists()):
            if _excluded(p.as_posix(), p.name, tuple(exclude)):
                continue
            key = os.path.realpath(p)
            if key not in seen:
                seen.add(key)
                files.append(p)
            continue
        # Folder: gitignore files from the folder's ancestors up to the repo root apply too.
        ignores: list[_GitIgnore] = []
        if respect_gitignore:
            anc = p.resolve()
            chain = []
            for d in (anc, *anc.parents):
                chain.append(d)
                if (d / ".git").exists():
                    break
            else:
                chain = [anc]
            for d in reversed(chain[1:]):
                g = _load_gitignore(d)
                if g:
                    ignores.append(g)
        visited: set[str] = set()
        _walk(p, p, patterns, ignores, respect_gitignore, files, seen, visited)
    return Discovered(files=files, missing=missing)


def _is_ignored(path: Path, is_dir: bool, ignores: list[_GitIgnore]) -> bool:
    verdict = False
    ap = path.resolve() if not path.is_absolute() else path
    for g in ignores:
        try:
            rel = ap.relative_to(g.base.resolve()).as_posix()
        except ValueError:
            continue
        v = g.ignored(rel, is_dir)
        if v is not None:
            verdict = v
    return verdict


def _walk(
    root: Path,
    d: Path,
    patterns: tuple[str, ...],
    ignores: list[_GitIgnore],
    respect_gitignore: bool,
    out: list[Path],
    seen: set[str],
    visited: set[str],
) -> None:
    real = os.path.realpath(d)
    if real in visited:
        return  # symlink loop
    visited.add(real)
    local = list(ignores)
    if respect_gitignore:
        g = _load_gitignore(d)
        if g:
            local.append(g)
    try:
        entries = sorted(os.scandir(d), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        path = Path(e.path)
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            rel = e.name
        try:
            is_dir = e.is_dir()
        except OSError:  # a symlink loop: a .py one is reported as unreadable (CL000)
            is_dir = False
        if _excluded(rel, e.name, patterns):
            continue
        if local and _is_ignored(path, is_dir, local):
            continue
        if is_dir:
            _walk(root, path, patterns, local, respect_gitignore, out, seen, visited)
        elif e.name.endswith((".py", ".pyi")):
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                out.append(path)
