"""Text differences between a file before and after fixes: :class:`Edit` records (the SARIF
``fixes`` contract), line maps between versions, and unified diffs."""

from __future__ import annotations

import difflib
from bisect import bisect_right

from compilelint.model import Edit


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _pos(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, col) of a character offset."""
    i = bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i] + 1


def edits_between(path: str, before: str, after: str) -> tuple[Edit, ...]:
    """The smallest line-hunk replacements turning ``before`` into ``after``, each trimmed to
    the characters that change (1-based lines and columns, ``end_col`` exclusive)."""
    if before == after:
        return ()
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    a_starts = _line_starts(before)
    b_off = [0]
    for ln in b:
        b_off.append(b_off[-1] + len(ln))
    a_off = [0]
    for ln in a:
        a_off.append(a_off[-1] + len(ln))
    out: list[Edit] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        old = before[a_off[i1] : a_off[i2]]
        new = after[b_off[j1] : b_off[j2]]
        p = 0
        while p < len(old) and p < len(new) and old[p] == new[p]:
            p += 1
        s = 0
        while s < len(old) - p and s < len(new) - p and old[-1 - s] == new[-1 - s]:
            s += 1
        start = a_off[i1] + p
        end = a_off[i2] - s
        line, col = _pos(a_starts, start)
        eline, ecol = _pos(a_starts, end)
        out.append(Edit(path, line, col, eline, ecol, new[p : len(new) - s]))
    return tuple(out)


def apply_edits(text: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """Apply non-overlapping edits (in the coordinates of ``text``)."""
    starts = _line_starts(text)

    def off(line: int, col: int) -> int:
        if line - 1 >= len(starts):
            return len(text)
        return starts[line - 1] + col - 1

    out = text
    for e in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        out = out[: off(e.line, e.col)] + e.content + out[off(e.end_line, e.end_col) :]
    return out


class LineMap:
    """Maps 1-based lines between two versions of a file. A line inside a changed hunk maps
    to the whole hunk on the other side."""

    def __init__(self, before: str, after: str) -> None:
        a = before.splitlines()
        b = after.splitlines()
        self._ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()

    def forward(self, line: int) -> tuple[int, int]:
        """Lines of ``after`` that hold line ``line`` of ``before`` (first, last)."""
        return self._map(line, 0)

    def back(self, line: int) -> tuple[int, int]:
        """Lines of ``before`` that line ``line`` of ``after`` came from (first, last)."""
        return self._map(line, 1)

    def _map(self, line: int, side: int) -> tuple[int, int]:
        i = line - 1
        for tag, i1, i2, j1, j2 in self._ops:
            lo, hi, olo, ohi = (i1, i2, j1, j2) if side == 0 else (j1, j2, i1, i2)
            if lo <= i < hi or (lo == hi == i):
                if tag == "equal":
                    n = olo + (i - lo) + 1
                    return n, n
                return olo + 1, max(olo + 1, ohi)
        return line, line


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    out = []
    for ln in lines:
        out.append(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n")
    return "".join(out)
