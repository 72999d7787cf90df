"""Rank labels as compact text: ``0-511, 513-1023`` (pure; used by the comparison and the
reporters, imports nothing)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def rank_order(labels: Iterable[str]) -> list[str]:
    """Numeric labels by number, then the others (``spec``) by name."""
    return sorted(labels, key=lambda x: (not x.isdigit(), int(x) if x.isdigit() else 0, x))


def rank_ranges(labels: Sequence[str]) -> str:
    """``0-511, 513-1023`` (numeric labels in runs; others as they are)."""
    nums = sorted(int(x) for x in labels if x.isdigit())
    other = [x for x in labels if not x.isdigit()]
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(parts + other)


def expand_ranges(ranges: str) -> list[str]:
    """``0-2, 5`` -> ``["0", "1", "2", "5"]``."""
    out: list[str] = []
    for part in ranges.split(","):
        part = part.strip()
        a, sep, b = part.partition("-")
        if sep and a.isdigit() and b.isdigit():
            out += [str(i) for i in range(int(a), int(b) + 1)]
        elif part:
            out.append(part)
    return out


def ranks_text(ranks: Sequence[str]) -> str:
    """``rank 3`` / ``ranks 0-2, 5``."""
    return ("rank " if len(ranks) == 1 else "ranks ") + rank_ranges(ranks)
