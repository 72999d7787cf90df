"""``compilelint.assert_compiles``: graph breaks and recompiles as assertions in users' tests.

    def test_model_compiles():
        model = MyModel()
        compilelint.assert_compiles(model, torch.randn(2, 16), variants=[(torch.randn(4, 16),)])

Runs the dynamic stage in-process on the live model (:mod:`compilelint.dynamic.inprocess`),
maps what torch observed to the user's file and line exactly as ``compilelint check
--input-spec`` does, and raises an ``AssertionError`` whose message is the ranked text report
(file:line, rule, torch's GB id, hints and the fix) when the run exceeds its budgets.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from compilelint import __version__
from compilelint.budgets import apply_budgets, exceeded
from compilelint.model import Report, Summary

if TYPE_CHECKING:
    from compilelint.catalog import Catalog
    from compilelint.dynamic.api import DynamicResult


def _name(model: Any) -> str:
    """A function's qualified name, or a module instance's class name."""
    return str(getattr(model, "__qualname__", None) or type(model).__name__)


def _static_report(result: DynamicResult, root: str, catalog: Catalog) -> Report:
    """The static stage over the user files torch observed breaks or recompiles in, so that
    observed breaks are attributed to the rule that explains them (e.g. CL201 for ``print``)."""
    from compilelint.api import check
    from compilelint.config import load_config
    from compilelint.merge import display_path

    seen = [b.path for b in result.breaks] + [r.path for r in result.recompiles]
    files = sorted({p for p in seen if p and os.path.isfile(p)})
    if not files:
        return Report(
            version=__version__,
            torch=None,
            findings=(),
            errors=(),
            summary=Summary(files=0, lines=0, findings=0, by_rule={}, seconds=0.0),
        )
    cfg = dataclasses.replace(load_config(files), report_untraced=True)
    report = check(files, cfg, catalog=catalog, no_cache=True)
    # The static stage writes paths relative to the current folder; merging needs ``root``.
    cwd = os.getcwd()
    findings = tuple(
        dataclasses.replace(f, path=display_path(os.path.join(cwd, f.path), root))
        for f in report.findings
    )
    return dataclasses.replace(report, findings=findings)


def compile_report(
    model: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    variants: Iterable[Any] = (),
    *,
    root: str | None = None,
) -> Report:
    """The report of one in-process run: observed breaks and recompiles, merged and ranked."""
    from compilelint.catalog import load_catalog
    from compilelint.dynamic.api import build_result
    from compilelint.dynamic.cli import add_dynamic_to_report
    from compilelint.dynamic.inprocess import observe_live

    root = os.path.realpath(root or os.getcwd())
    raw = observe_live(model, args, kwargs, variants, root=root)
    result = build_result(raw, root)
    catalog = load_catalog()
    report = add_dynamic_to_report(
        _static_report(result, root, catalog),
        _name(model),
        cwd=root,
        progress=False,
        catalog=catalog,
        result=result,
    )
    # Only what torch observed: the static stage is there to name the rule (confirmed).
    observed = tuple(f for f in report.findings if f.stage in ("dynamic", "both"))
    by_rule = dict(sorted(Counter(f.rule for f in observed).items()))
    report = dataclasses.replace(
        report,
        findings=observed,
        summary=dataclasses.replace(report.summary, findings=len(observed), by_rule=by_rule),
    )
    files = len({f.path for f in report.findings})
    summary = dataclasses.replace(
        report.summary, files=files, seconds=round(float(raw.get("seconds") or 0.0), 3)
    )
    return dataclasses.replace(report, summary=summary)


def failure_message(report: Report, name: str) -> str:
    """The exceeded budgets, then the ranked text report with torch's hints (no colour)."""
    from compilelint.catalog import load_catalog
    from compilelint.report.text_reporter import render

    block = report.extra.get("budgets")
    messages = list(block.get("exceeded", [])) if isinstance(block, dict) else []
    body = render(
        dataclasses.replace(report, errors=()),
        load_catalog(),
        {"color": False, "hints": True, "width": 120},
    )
    # The last line is the "Found N findings in ..." summary of a file scan: not useful here.
    lines = body.rstrip("\n").splitlines()[:-1]
    return "\n".join([f"assert_compiles({name}): {'; '.join(messages)}", "", *lines])


def check_compiles(
    model: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    max_graph_breaks: int | None = 0,
    max_recompiles: int | None = 0,
    variants: Iterable[Any] = (),
    root: str | None = None,
) -> Report:
    """:func:`assert_compiles` with explicit arguments (and a ``root``: the folder whose files
    count as the user's code; default: the current folder)."""
    report = compile_report(model, args, kwargs, variants, root=root)
    report = apply_budgets(report, max_graph_breaks, max_recompiles, where=_name(model))
    if exceeded(report):
        raise AssertionError(failure_message(report, _name(model)))
    return report


def assert_compiles(
    model: Callable[..., Any],
    *args: Any,
    max_graph_breaks: int | None = 0,
    max_recompiles: int | None = 0,
    variants: Iterable[Any] = (),
    **kwargs: Any,
) -> Report:
    """Compile ``model`` (an ``nn.Module`` or a function), call it with ``*args, **kwargs`` and
    then with each of ``variants`` (a tuple of positional arguments, or an ``(args, kwargs)``
    pair), and raise ``AssertionError`` when torch observed more graph breaks or recompiles than
    allowed (``None``: no limit). Returns the :class:`~compilelint.model.Report` otherwise.

    Breaks count as ``TORCH_LOGS=graph_breaks`` counts them (distinct type, file and line);
    recompiles are guard failures across the calls. Dynamo is reset before and after; the
    model's own exceptions propagate unchanged. Needs torch (imported on first call).
    """
    return check_compiles(
        model,
        args,
        kwargs,
        max_graph_breaks=max_graph_breaks,
        max_recompiles=max_recompiles,
        variants=variants,
    )
