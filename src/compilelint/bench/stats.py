"""Statistics for step times: medians with spread, and when a difference is significant. Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac)


def summarize(samples: Sequence[float]) -> dict[str, Any]:
    """Median, quartiles, spread (IQR) and range of step times in milliseconds."""
    xs = sorted(float(x) for x in samples)
    if not xs:
        return {
            "n": 0,
            "median_ms": None,
            "p25_ms": None,
            "p75_ms": None,
            "iqr_ms": None,
            "min_ms": None,
            "max_ms": None,
            "mean_ms": None,
        }
    p25, p75 = quantile(xs, 0.25), quantile(xs, 0.75)
    return {
        "n": len(xs),
        "median_ms": round(quantile(xs, 0.5), 4),
        "p25_ms": round(p25, 4),
        "p75_ms": round(p75, 4),
        "iqr_ms": round(p75 - p25, 4),
        "min_ms": round(xs[0], 4),
        "max_ms": round(xs[-1], 4),
        "mean_ms": round(sum(xs) / len(xs), 4),
    }


def significant(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two step-time summaries differ significantly when their interquartile ranges do not
    overlap: the spread is narrower than the difference."""
    if not a.get("n") or not b.get("n"):
        return False
    return bool(a["p75_ms"] < b["p25_ms"] or b["p75_ms"] < a["p25_ms"])


def speedup(eager: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """Eager median over the other median, with a verdict: faster, slower or not significant."""
    if not eager.get("n") or not other.get("n") or not other["median_ms"]:
        return {"speedup": None, "significant": False, "verdict": "no data"}
    ratio = eager["median_ms"] / other["median_ms"]
    sig = significant(eager, other)
    if not sig:
        verdict = "not significant"
    else:
        verdict = "faster" if ratio > 1 else "slower"
    return {"speedup": round(ratio, 3), "significant": sig, "verdict": verdict}


def median(values: Sequence[float]) -> float:
    xs = sorted(float(x) for x in values)
    return quantile(xs, 0.5) if xs else 0.0
