"""Budgets for the dynamic stage: fail the run when torch observed too many breaks or recompiles.

``--max-graph-breaks N`` / ``--max-recompiles N`` (or ``max-graph-breaks`` / ``max-recompiles``
in ``[tool.compilelint]``) compare with the dynamic block's ``graph_break_count`` (distinct
breaks, deduplicated by type, file and line, as ``TORCH_LOGS=graph_breaks`` counts them) and
``recompile_count``. An exceeded budget is a :class:`FileError` of kind ``"budget"`` (exit code
1, shown by every reporter) plus ``report.extra["budgets"]``. Pure functions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from compilelint.model import FileError, Report

BUDGET_KIND = "budget"


def evaluate(
    block: Mapping[str, Any],
    max_graph_breaks: int | None,
    max_recompiles: int | None,
    source: str = "the dynamic run observed",
) -> dict[str, Any]:
    """``{"max_graph_breaks", "graph_breaks", "max_recompiles", "recompiles", "exceeded"}``;
    ``exceeded`` holds one message per budget the run went over."""
    breaks = int(block.get("graph_break_count") or 0)
    recompiles = int(block.get("recompile_count") or 0)
    exceeded: list[str] = []
    if max_graph_breaks is not None and breaks > max_graph_breaks:
        exceeded.append(
            f"graph-break budget exceeded: {source} {breaks} graph "
            f"break{'s' * (breaks != 1)}, max-graph-breaks allows {max_graph_breaks}"
        )
    if max_recompiles is not None and recompiles > max_recompiles:
        exceeded.append(
            f"recompile budget exceeded: {source} {recompiles} "
            f"recompile{'s' * (recompiles != 1)}, max-recompiles allows {max_recompiles}"
        )
    return {
        "max_graph_breaks": max_graph_breaks,
        "graph_breaks": breaks,
        "max_recompiles": max_recompiles,
        "recompiles": recompiles,
        "exceeded": exceeded,
    }


def apply_budgets(
    report: Report,
    max_graph_breaks: int | None,
    max_recompiles: int | None,
    where: str = "",
) -> Report:
    """Check the report's dynamic block against the budgets; without a dynamic run
    (``--static-only``), the static prediction's counts. A report with neither, or whose run
    failed, is returned unchanged (there are no counts to compare)."""
    if max_graph_breaks is None and max_recompiles is None:
        return report
    block = report.extra.get("dynamic")
    pred = report.extra.get("prediction")
    if isinstance(block, dict):
        if block.get("error"):
            return report
        result = evaluate(block, max_graph_breaks, max_recompiles)
    elif isinstance(pred, dict) and pred.get("function"):
        counts = {
            "graph_break_count": pred.get("graph_breaks"),
            "recompile_count": pred.get("recompiles"),
        }
        result = evaluate(
            counts, max_graph_breaks, max_recompiles, source="the static prediction says"
        )
        result["source"] = "prediction"
    else:
        return report
    extra = dict(report.extra)
    extra["budgets"] = result
    errors = report.errors + tuple(
        FileError(path=where, message=msg, kind=BUDGET_KIND) for msg in result["exceeded"]
    )
    return dataclasses.replace(report, errors=errors, extra=extra)


def exceeded(report: Report) -> bool:
    return any(e.kind == BUDGET_KIND for e in report.errors)
