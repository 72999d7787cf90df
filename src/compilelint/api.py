"""The Python API. The CLI calls these; so can users' own tests.

import compilelint
report = compilelint.check(["models/"], spec="spec.json")   # static + dynamic, as the CLI
assert not [f for f in report.findings if f.severity == "error"]

``compilelint.api.check`` is the static stage alone; :func:`analyze` (exported as
``compilelint.check``) is everything ``compilelint check`` does: the static stage, the dynamic
stage when a spec is given, the baseline and the budgets.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from compilelint import __version__
from compilelint.catalog import Catalog, load_catalog
from compilelint.config import Config, load_config
from compilelint.model import SEVERITY_ORDER, Report, Summary
from compilelint.static.engine import ScanResult, scan


def check(
    paths: list[str],
    config: Config | None = None,
    *,
    catalog: Catalog | None = None,
    progress: Callable[[int, int], None] | None = None,
    no_cache: bool = False,
    predict_spec: str | None = None,
) -> Report:
    """Run the static stage over files and folders. Problems with inputs come back as data.

    ``predict_spec``: an input spec; the report's ``extra["prediction"]`` then holds what the
    static stage predicts torch.compile does with the spec's calls (graphs, breaks,
    recompiles; :mod:`compilelint.static.predict`), without importing torch or the model."""
    cfg = config if config is not None else load_config(paths)
    if predict_spec is not None:
        cfg = spec_context(cfg, predict_spec)
    cat = catalog or load_catalog()
    res = scan(
        paths,
        cfg,
        catalog=cat,
        progress=progress,
        no_cache=no_cache,
        want_project=predict_spec is not None,
    )
    report = report_from_scan(res)
    if predict_spec is not None:
        report = with_prediction(report, res, predict_spec, cat, cfg)
    return report


def spec_context(cfg: Config, spec_path: str) -> Config:
    """The compile context the spec's runs have, for what the config leaves open: the spec's
    ``mode``, else eval for a class (the dynamic stage puts a class's instance in eval mode; a
    factory's model keeps its own mode, left open); float32 for a class, whose parameters the
    dynamic stage does not cast. A spec that does not load leaves the config as it is (the
    prediction reports the error)."""
    import dataclasses
    import re

    from compilelint.dynamic.spec import SpecError, load_spec

    try:
        spec = load_spec(spec_path)
    except (SpecError, OSError, ValueError):
        return cfg
    target, _, name = spec.model.rpartition(":")
    inputs = spec_tensor_inputs(spec)
    if inputs and target.endswith(".py"):
        base = os.path.dirname(spec.source or spec_path)
        path = target if os.path.isabs(target) else os.path.join(base, target)
        cfg = dataclasses.replace(cfg, spec_inputs=(os.path.realpath(path), name, inputs))
    is_class = False
    if target.endswith(".py") and "." not in name:
        base = os.path.dirname(spec.source or spec_path)
        path = target if os.path.isabs(target) else os.path.join(base, target)
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = Path(path).read_text(encoding="utf-8")
            is_class = re.search(rf"^class\s+{re.escape(name)}\b", text, re.M) is not None
        if is_class:
            init = json.dumps({"args": list(spec.init_args), "kwargs": spec.init_kwargs})
            cfg = dataclasses.replace(cfg, spec_init=(os.path.realpath(path), name, init))
    if cfg.mode is not None and cfg.dtype is not None:
        return cfg
    mode = cfg.mode or spec.mode or ("eval" if is_class else None)
    dtype = cfg.dtype or ("float32" if is_class else None)
    return dataclasses.replace(cfg, mode=mode, dtype=dtype)


def with_prediction(
    report: Report,
    res: ScanResult,
    spec_path: str,
    catalog: Catalog,
    cfg: Config | None = None,
) -> Report:
    """``report.extra["prediction"]`` for the spec (a bad spec: a one-line usage error), and the
    predicted recompiles as ``CL303`` findings when that rule is selected."""
    import dataclasses

    from compilelint.dynamic.spec import SpecError, load_spec
    from compilelint.model import FileError
    from compilelint.static.predict import (
        PREDICTED_RECOMPILE,
        predict,
        recompile_findings,
        spec_decided,
    )

    try:
        spec = load_spec(spec_path)
    except SpecError as exc:
        err = FileError(path=spec_path, message=f"--input-spec: {exc}", kind="usage")
        return dataclasses.replace(report, errors=(*report.errors, err))
    if res.project is None:
        return report
    pred = predict(
        res.project,
        res.findings,
        spec,
        catalog,
        os.path.dirname(spec_path),
        cfg.target_torch if cfg is not None else None,
    )
    report = dataclasses.replace(report, extra={**report.extra, "prediction": pred.to_json()})
    rule = catalog.get(PREDICTED_RECOMPILE)
    if rule is None or (cfg is not None and PREDICTED_RECOMPILE not in _selected(cfg, catalog)):
        return report
    kept = spec_decided(pred, report.findings)
    extra = recompile_findings(pred, kept, rule)
    if not extra and len(kept) == len(report.findings):
        return report
    findings = (*kept, *extra)
    by_rule = dict(sorted(Counter(f.rule for f in findings).items()))
    summary = dataclasses.replace(report.summary, findings=len(findings), by_rule=by_rule)
    return dataclasses.replace(report, findings=findings, summary=summary)


_INT_DTYPES = frozenset({"int64", "int32", "int16", "int8", "uint8", "long", "int", "short"})


def spec_tensor_inputs(spec: Any) -> tuple[tuple[str, int, str], ...]:
    """The rank and dtype kind of each tensor input the spec gives its entry (position as a
    string, or keyword), where every call (the inputs and each variant) agrees on them; a Python
    number is ``(key, SPEC_NUMBER_RANK, "int"|"float"|"bool")`` (not a tensor in any call), a
    list of numbers of one type ``(key, SPEC_NUMBERS_RANK, type)``."""
    from compilelint.static.analysis.values import SPEC_NUMBER_RANK, SPEC_NUMBERS_RANK

    def metas(args: Any, kwargs: Any) -> dict[str, tuple[int, str]]:
        out: dict[str, tuple[int, str]] = {}
        items = [(str(i), a) for i, a in enumerate(args)] + list(kwargs.items())
        for key, a in items:
            if isinstance(a, dict) and isinstance(a.get("tensor"), list):
                dt = str(a.get("dtype", "float32")).removeprefix("torch.")
                kind = "int" if dt in _INT_DTYPES else "bool" if dt == "bool" else "float"
                out[key] = (len(a["tensor"]), kind)
            elif isinstance(a, (bool, int, float)):
                out[key] = (SPEC_NUMBER_RANK, type(a).__name__)
            elif (
                isinstance(a, list)
                and a
                and isinstance(a[0], (bool, int, float))
                and all(type(e) is type(a[0]) for e in a)
            ):
                out[key] = (SPEC_NUMBERS_RANK, type(a[0]).__name__)
        return out

    if not spec.inputs_given:
        return ()
    got = metas(spec.inputs, spec.kwargs)
    for var in spec.variants:
        other = metas(var.get("inputs", spec.inputs), {**spec.kwargs, **var.get("kwargs", {})})
        got = {k: v for k, v in got.items() if other.get(k) == v}
    return tuple(sorted((k, r, d) for k, (r, d) in got.items()))


def _selected(cfg: Config, catalog: Catalog) -> set[str]:
    from compilelint.config import selected_codes

    return selected_codes(cfg, {c: r.default for c, r in catalog.rules.items()})


def report_from_scan(res: ScanResult) -> Report:
    """The :class:`Report` of one static scan."""
    by_rule = dict(sorted(Counter(f.rule for f in res.findings).items()))
    return Report(
        version=__version__,
        torch=None,
        findings=tuple(res.findings),
        errors=tuple(res.errors),
        summary=Summary(
            files=res.files,
            lines=res.lines,
            findings=len(res.findings),
            by_rule=by_rule,
            seconds=round(res.seconds, 3),
            cached=res.cached,
        ),
        extra={"follow": res.follow} if res.follow and res.follow.get("packages") else {},
    )


def config_baseline(cfg: Config) -> str | None:
    """``baseline = "..."`` from [tool.compilelint], relative to that pyproject's folder."""
    value = cfg.extra.get("baseline")
    if not isinstance(value, str) or not value:
        return None
    return os.path.join(cfg.root, value) if cfg.source else value


def config_budgets(cfg: Config) -> tuple[int | None, int | None]:
    """``(max-graph-breaks, max-recompiles)`` from the config (None where unset)."""
    mgb, mrc = cfg.extra.get("max-graph-breaks"), cfg.extra.get("max-recompiles")
    return (mgb if isinstance(mgb, int) else None, mrc if isinstance(mrc, int) else None)


def finalize(
    report: Report,
    cfg: Config,
    *,
    baseline: str | None = None,
    max_graph_breaks: int | None = None,
    max_recompiles: int | None = None,
    cwd: str | None = None,
    spec_path: str | None = None,
) -> Report:
    """The steps after the stages: the baseline (argument, else config) hides known findings;
    the budgets (arguments, else config) are checked against the dynamic run's counts."""
    from compilelint.baseline import apply_baseline_file
    from compilelint.budgets import apply_budgets

    bl = baseline or config_baseline(cfg)
    if bl:
        report = apply_baseline_file(report, bl, cwd)
    cfg_mgb, cfg_mrc = config_budgets(cfg)
    return apply_budgets(
        report,
        max_graph_breaks if max_graph_breaks is not None else cfg_mgb,
        max_recompiles if max_recompiles is not None else cfg_mrc,
        where=spec_path or "",
    )


def analyze(
    paths: str | os.PathLike[str] | list[str | os.PathLike[str]] | tuple[str, ...],
    spec: str | os.PathLike[str] | dict[str, Any] | None = None,
    config: Config | str | os.PathLike[str] | None = None,
    *,
    baseline: str | None = None,
    max_graph_breaks: int | None = None,
    max_recompiles: int | None = None,
    timeout: float | None = None,
    no_cache: bool = False,
) -> Report:
    """What ``compilelint check PATHS [--input-spec SPEC]`` computes, as a :class:`Report`
    (exported as ``compilelint.check``).

    ``spec`` is a spec file or a spec as a dict (model paths relative to the current folder);
    it runs the dynamic stage in a child process and merges it. ``config`` is a :class:`Config`
    or the path of a pyproject.toml (default: discovered from the first path). Problems with
    the scanned files or the model come back in ``report.errors``; a bad config or spec
    argument raises (``compilelint.config.ConfigError``, ``compilelint.dynamic.spec.SpecError``).
    """
    plist = [os.fspath(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)]
    plist = plist or ["."]
    if isinstance(config, Config):
        cfg = config
    elif config is not None:
        cfg = load_config(plist, os.fspath(config))
    else:
        cfg = load_config(plist)
    cat = load_catalog()
    if spec is None:
        report = check(plist, cfg, catalog=cat, no_cache=no_cache)
    else:
        from compilelint.dynamic.api import DEFAULT_TIMEOUT
        from compilelint.dynamic.cli import add_dynamic_to_report

        with _spec_file(spec) as spec_path:
            # the static prediction for the spec's calls, then the run that checks it
            report = check(plist, cfg, catalog=cat, no_cache=no_cache, predict_spec=spec_path)
            report = add_dynamic_to_report(
                report,
                spec_path,
                catalog=cat,
                timeout=timeout or DEFAULT_TIMEOUT,
                progress=False,
                cover=plist,
            )
    return finalize(
        report,
        cfg,
        baseline=baseline,
        max_graph_breaks=max_graph_breaks,
        max_recompiles=max_recompiles,
        spec_path=os.fspath(spec) if isinstance(spec, (str, os.PathLike)) else None,
    )


@contextlib.contextmanager
def _spec_file(spec: str | os.PathLike[str] | dict[str, Any]) -> Iterator[str]:
    """A spec path as is, or a spec dict validated (raising ``SpecError``) and written to a
    temporary file for the child process."""
    if not isinstance(spec, dict):
        yield os.fspath(spec)
        return
    from compilelint.dynamic.spec import validate

    validate(spec, source="spec")
    fd, path = tempfile.mkstemp(prefix="compilelint-spec-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(spec, fh)
    try:
        yield path
    finally:
        Path(path).unlink(missing_ok=True)


def exit_code(report: Report, fail_on: str) -> int:
    """0 clean, 1 findings at or above ``fail_on`` or an exceeded budget, 2 usage or internal
    errors."""
    if any(e.kind in ("usage", "internal") for e in report.errors):
        return 2
    dyn = report.extra.get("dynamic")
    if isinstance(dyn, dict) and dyn.get("error"):
        return 2
    if any(e.kind == "budget" for e in report.errors):
        return 1
    if fail_on == "never":
        return 0
    threshold = SEVERITY_ORDER[fail_on]
    if any(SEVERITY_ORDER[f.severity] >= threshold for f in report.findings):
        return 1
    return 0
