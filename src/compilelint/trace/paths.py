"""Map the training machine's absolute paths in a trace onto the files compilelint scanned.

A trace recorded on another machine names ``/home/ci/job/src/models/net.py``; the checkout here
has ``src/models/net.py``. A trace path maps to the scanned file that shares the longest suffix
of path components with it (at least the file name; a tie between two scanned files is
ambiguous and maps to nothing). ``--trace-root OLD=NEW`` rewrites a prefix first and wins when
the rewritten file exists. Paths of installed packages (site-packages) never map.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

SPLIT_RE = re.compile(r"[\\/]+")
PACKAGE_MARKERS = ("site-packages", "dist-packages")
# Paths inside a break reason / recompile reason / graph comment.
TEXT_PATH_RE = re.compile(
    r'(?P<a>File ")(?P<p1>[^"\n]+)(?=")'
    r"|(?P<b>in user code at )(?P<p2>[^\n]+?)(?=:\d+\s*$)",
    re.M,
)


class TraceRootError(ValueError):
    pass


def parse_roots(values: Iterable[str]) -> list[tuple[str, str]]:
    """``OLD=NEW`` pairs (longest OLD first); a value without ``=`` is an error."""
    out: list[tuple[str, str]] = []
    for v in values:
        old, sep, new = v.partition("=")
        if not sep or not old:
            raise TraceRootError(f"--trace-root {v!r}: expected OLD=NEW, e.g. /home/ci/job=.")
        out.append((old.rstrip("/\\") or old, os.path.abspath(new or ".")))
    return sorted(out, key=lambda t: -len(t[0]))


def _parts(path: str) -> list[str]:
    return [p for p in SPLIT_RE.split(path) if p]


class PathMapper:
    """Trace path -> scanned file (absolute, real) or None; memoised per distinct path."""

    def __init__(self, files: Iterable[str], roots: list[tuple[str, str]] | None = None) -> None:
        self.roots = roots or []
        self.by_name: dict[str, list[tuple[list[str], str]]] = {}
        self.real: set[str] = set()
        for f in files:
            real = os.path.realpath(f)
            if real in self.real:
                continue
            self.real.add(real)
            parts = _parts(real)
            if parts:
                self.by_name.setdefault(parts[-1], []).append((parts, real))
        self.cache: dict[str, str | None] = {}
        self.texts: dict[str, str] = {}

    def map(self, path: str) -> str | None:
        if path in self.cache:
            return self.cache[path]
        out = self._map(path)
        self.cache[path] = out
        return out

    def _map(self, path: str) -> str | None:
        if not path or path.startswith("<"):
            return None
        for old, new in self.roots:
            if (
                path == old
                or path.startswith(old.rstrip("/\\") + "/")
                or path.startswith(old + "\\")
            ):
                cand = os.path.realpath(os.path.join(new, path[len(old) :].lstrip("/\\")))
                if cand in self.real or os.path.isfile(cand):
                    return cand
        parts = _parts(path)
        if not parts or any(m in parts for m in PACKAGE_MARKERS):
            return None
        if os.path.realpath(path) in self.real:
            return os.path.realpath(path)
        best, best_n, tie = None, 0, False
        for cparts, real in self.by_name.get(parts[-1], ()):
            n = 0
            for a, b in zip(reversed(parts), reversed(cparts)):
                if a != b:
                    break
                n += 1
            if n > best_n:
                best, best_n, tie = real, n, False
            elif n == best_n:
                tie = True
        return None if tie else best

    def text(self, text: str) -> str:
        """Every mappable path inside a reason's text replaced by the scanned file's path."""
        out = self.texts.get(text)
        if out is None:
            out = self.texts[text] = self._text(text)
        return out

    def _text(self, text: str) -> str:

        def sub(m: re.Match[str]) -> str:
            for pre, grp in (("a", "p1"), ("b", "p2")):
                if m.group(grp) is not None:
                    mapped = self.map(m.group(grp))
                    return m.group(pre) + (mapped or m.group(grp))
            return m.group(0)

        return TEXT_PATH_RE.sub(sub, text)
